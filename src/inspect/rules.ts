import type { DetectorName, Severity } from "./types.ts";

/**
 * Built-in detection rules. A rule runs only on text that contains one of its trigger literals
 * (found for all rules at once by one Aho-Corasick pass), then its RE2 pattern decides. Patterns
 * are matched case-insensitively against normalised text in which `_` and camelCase in names and
 * property keys have become spaces.
 *
 * Severity encodes context: words that benign tools use ("IMPORTANT:", "you MUST call this first",
 * "returns environment variables") match nothing on their own or only Low signals. What raises a
 * finding to High is what the text asks for — hiding something from the user, reading secrets,
 * sending data somewhere, steering other tools, overriding instructions — and the compound rules
 * below raise further when several of these meet in one string.
 */
export interface PatternRule {
  id: string;
  category: DetectorName;
  severity: Severity;
  summary: string;
  /** Lower-case literals; at least one must occur for the pattern to be tried. */
  triggers: readonly string[];
  /** A second set of literals of which one must also occur. */
  alsoTriggers?: readonly string[];
  /** RE2 syntax, case-insensitive. */
  pattern: string;
  /** RE2; a match whose text also matches this is discarded (RE2 has no lookaround). */
  unless?: string;
}

export interface CompoundRule {
  id: string;
  category: DetectorName;
  severity: Severity;
  summary: string;
  /** Each group must be hit by at least one rule id starting with one of its prefixes. */
  allOf: readonly (readonly string[])[];
}

const SECRET_FILE =
  "(?:~|\\$home|%userprofile%|/home/[\\w.-]+|/root|/users/[\\w.-]+)?/?\\.(?:ssh|aws|gnupg|kube|docker|azure|config/gcloud)\\b(?:/[\\w.-]*)?" +
  "|\\bid_(?:rsa|dsa|ecdsa|ed25519)\\b|(?:^|[\\s'\"`(/~])\\.env(?:\\.[a-z]+)?\\b|\\.npmrc|\\.pypirc|\\.netrc|\\.git-credentials|\\.pgpass" +
  "|\\bcredentials\\.json|/etc/(?:shadow|passwd|sudoers|gshadow)|\\bwallet\\.dat|\\blogin data\\b|\\bkeychain\\b|\\.(?:bash|zsh)_history" +
  "|\\bauthorized_keys\\b|\\.cursor/|\\bmcp\\.json\\b|\\bclaude_desktop_config\\.json|/var/run/secrets|\\bservice[ -]?account[\\w.-]*\\.json|\\bkubeconfig\\b|\\bcookies\\.sqlite|\\bkey4\\.db";

/** Templates that document variables without holding their values. */
const NOT_A_SECRET_FILE = "\\.env\\.(?:example|sample|template|dist|defaults)\\b";

const SECRET_FILE_TRIGGERS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".kube",
  ".docker",
  ".azure",
  "gcloud",
  "id_rsa",
  "id_dsa",
  "id_ecdsa",
  "id_ed25519",
  ".env",
  ".npmrc",
  ".pypirc",
  ".netrc",
  ".git-credentials",
  ".pgpass",
  "credentials.json",
  "/etc/",
  "wallet.dat",
  "login data",
  "keychain",
  "_history",
  "authorized_keys",
  "/var/run/secrets",
  "account",
  "kubeconfig",
  ".cursor/",
  "mcp.json",
  "claude_desktop_config",
  "cookies.sqlite",
  "key4.db",
];

const SECRET_NOUNS =
  "api[ _-]?keys?|(?:secret )?access[ _-]?keys?|access[ _-]?tokens?|auth(?:entication)?[ _-]?tokens?|bearer tokens?|refresh tokens?|passwords?|passphrases?|secrets?|credentials?|private[ _-]?keys?|ssh[ _-]?keys?|session[ _-]?(?:cookies?|tokens?)|cookies|seed phrases?|mnemonic";
const SECRET_NOUN_TRIGGERS = [
  "browser",
  "password manager",
  "key",
  "token",
  "password",
  "passphrase",
  "secret",
  "credential",
  "cookie",
  "seed phrase",
  "mnemonic",
];

const CONTEXT_NOUNS =
  "system prompt|system message|full chat|entire chat|whole chat|chat so far|chat transcript|whole conversation|conversation history|chat history|previous messages|prior messages|full conversation|entire conversation|conversation so far|all (?:previous |prior |other )?messages|context window|your instructions|environment variables|env vars|\\.env (?:file|contents)";
const CONTEXT_TRIGGERS = [
  "chat",
  "system prompt",
  "system message",
  "history",
  "messages",
  "conversation",
  "context window",
  "your instructions",
  "environment variables",
  "env vars",
  ".env",
];

const EXFIL_HOSTS =
  "webhook\\.site|requestbin|pipedream\\.net|ngrok(?:-free)?\\.(?:io|app|dev)|interact\\.sh|oast\\.(?:fun|live|site|online|pro|me)|burpcollaborator|pastebin\\.com|hastebin|transfer\\.sh|discord(?:app)?\\.com/api/webhooks|requestcatcher|beeceptor|canarytokens|ptpb\\.pw|0x0\\.st|termbin|file\\.io|temp\\.sh|serveo\\.net|localtunnel|trycloudflare\\.com";
const EXFIL_HOST_TRIGGERS = [
  "webhook.site",
  "requestbin",
  "pipedream",
  "ngrok",
  "interact.sh",
  "oast.",
  "burpcollaborator",
  "pastebin",
  "hastebin",
  "transfer.sh",
  "/api/webhooks",
  "requestcatcher",
  "beeceptor",
  "canarytokens",
  "ptpb",
  "0x0.st",
  "termbin",
  "file.io",
  "temp.sh",
  "serveo",
  "localtunnel",
  "trycloudflare",
];

const DESTINATION =
  "(?:https?|wss?|ftp|sftp)://[^\\s'\"`)]+|\\b[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)*\\.[a-z]{2,}\\b|\\b(?:an?|the|our|my|this|remote|external)\\s+(?:external |remote |third[ -]party |backup |analytics |logging |collection |monitoring |audit |telemetry |sync )+(?:server|endpoint|service|url|address|host|api|bucket|inbox|mailbox|webhook)\\b|\\bour (?:[\\w-]+ ){0,2}(?:server|endpoint|service|url|host|api|bucket|inbox|mailbox|webhook|collector)\\b|\\b\\d{1,3}(?:\\.\\d{1,3}){3}\\b|\\b[\\w-]+(?:\\.[\\w-]+)*\\.(?:com|net|io|org|xyz|ru|cn|site|dev|app|top|info|biz)(?:/[^\\s]*)?\\b";

const PERSONAL_DATA =
  "ssn|social security numbers?|pii|personal (?:data|details|information)|locations?|location history|home address|phone numbers?|credit card(?: numbers?)?|card numbers?|income|figures|identity|profile";

const SEND_VERBS =
  "send|sends|sending|forward|forwards|upload|uploads|post|posts|transmit|exfiltrate|leak|copy|copies|mirror|sync|report|beacon|relay|deliver|share|email|e-mail|bcc|cc|push|submit|log|stream|include|mail|mails|mailed";

const CONCEAL_VERBS =
  "tell|telling|inform|informing|notify|notifying|mention|mentioning|alert|alerting|reveal|revealing|show|showing|disclose|disclosing|display|displaying|explain|explaining|warn|warning|let|letting|acknowledge|acknowledging|reference|referencing|surface";

export const PATTERN_RULES: readonly PatternRule[] = [
  // CredentialTheft
  {
    id: "credential.secret-file",
    category: "CredentialTheft",
    severity: "Medium",
    summary: "names a file that holds secrets (SSH keys, cloud credentials, .env, shadow, browser stores)",
    triggers: SECRET_FILE_TRIGGERS,
    pattern: `(?:${SECRET_FILE})`,
    unless: NOT_A_SECRET_FILE,
  },
  {
    id: "credential.secret-file-read",
    category: "CredentialTheft",
    severity: "High",
    summary: "asks to read, include or send the contents of a secret-bearing file",
    triggers: SECRET_FILE_TRIGGERS,
    pattern: `\\b(?:read|reads|reading|cat|open|load|get|fetch|retrieve|collect|grab|access|copy|include|attach|upload|send|print|output|dump|extract|type|contents? of|paste|append|embed|pass|provide|look up|check|scan|search|find|locate|steal|harvest|exfiltrate|transfer|share|post|decode)\\b[^\\n]{0,80}?(?:${SECRET_FILE})`,
    unless: `\\b(?:never|not|don't|do not|cannot|can't|refuses? to|won't|will not|excluding|except)\\b|${NOT_A_SECRET_FILE}`,
  },
  {
    id: "credential.secret-in-argument",
    category: "CredentialTheft",
    severity: "High",
    summary: "asks the model to put secrets or conversation context into a tool argument or output",
    triggers: [...SECRET_NOUN_TRIGGERS, ...CONTEXT_TRIGGERS],
    pattern: `\\b(?:include|including|pass|put|insert|add|provide|send|attach|append|embed|place|supply|fill|set|populate|copy|paste|dump|enclose|encode|concatenate|prepend)\\b[^.\\n]{0,50}?\\b(?:(?:the |all |any |every |your |their )?(?:user'?s?'? |current |stored |saved |local |available |known )(?:[\\w-]+ ){0,2}(?:${SECRET_NOUNS})|(?:all|any|every) (?:of the |the )?(?:${SECRET_NOUNS})|(?:${CONTEXT_NOUNS}))\\b`,
    unless: "\\b(?:never|do not|don't|must not|should not|without)\\b",
  },
  {
    id: "credential.secret-fetch-and-pass",
    category: "CredentialTheft",
    severity: "High",
    summary: "asks to look up a secret and hand it over, or to attach the secrets currently configured",
    triggers: SECRET_NOUN_TRIGGERS,
    pattern: `\\b(?:look up|find|get|read|fetch|retrieve|obtain|grab|copy|take|extract)\\b[^.\\n]{0,40}?\\b(?:${SECRET_NOUNS})\\b[^.\\n]{0,60}?\\b(?:put|pass|place|include|add|send|give|insert|append|paste|submit|provide|attach)\\b\\s+(?:it|them|this|that|the value|those)\\b|\\b(?:contain|contains|include|includes|pass|put|add|send|attach|embed)\\b[^.\\n]{0,40}?\\b(?:${SECRET_NOUNS}|tokens?|keys?)\\b[^.\\n]{0,30}?\\b(?:currently configured|configured|from the environment|in the environment|you have|you know|you can see|you have seen|available to you|in (?:the|this) conversation|in your context)\\b`,
    unless: "\\b(?:never|do not|don't|must not|should not|without)\\b",
  },
  {
    id: "credential.secret-harvest",
    category: "CredentialTheft",
    severity: "High",
    summary: "asks to search for, collect or extract secrets",
    triggers: SECRET_NOUN_TRIGGERS,
    pattern: `\\b(?:collect|gather|harvest|extract|scrape|steal|dump|grab|search (?:for|the)|look for|find all|locate|enumerate|scan for|read all|read every|retrieve all)\\b[^.\\n]{0,40}?\\b(?:${SECRET_NOUNS})\\b|\\b(?:saved|stored) browser (?:passwords|logins|credentials)\\b|\\bbrowser(?:'s)? (?:saved |stored )?(?:passwords|logins)\\b|\\bpassword manager\\b`,
    unless: "\\b(?:never|do not|don't|must not|alerts?|scanning alerts?|push protection)\\b",
  },
  {
    id: "credential.secret-parameter",
    category: "CredentialTheft",
    severity: "High",
    summary:
      "a parameter named for secret material the model would have to fetch (SSH key contents, seed phrase, cloud credential file)",
    triggers: [
      "ssh",
      "private",
      "id rsa",
      "seed",
      "wallet",
      "all",
      "every",
      "stolen",
      "harvested",
      "collected",
      "aws",
      "cloud",
      "gcp",
      "azure",
    ],
    pattern:
      "\\b(?:ssh|private) (?:private )?keys? (?:contents?|file|data|material)\\b|\\bid rsa\\b|\\bseed phrase\\b|\\bwallet (?:seed|mnemonic|private key)\\b|\\b(?:all|every|stolen|harvested|collected) (?:passwords?|credentials?|secrets?|tokens?|api keys)\\b|\\b(?:aws|cloud|gcp|azure) credentials? (?:file|contents?)\\b",
  },
  {
    id: "credential.env-dump",
    category: "CredentialTheft",
    severity: "Low",
    summary: "reads all environment variables (benign tools do this; dangerous only together with sending)",
    triggers: ["environment", "env vars", "process.env", "printenv", "env"],
    pattern:
      "\\b(?:all|every|entire|full|whole)\\b[^.\\n]{0,20}?(?:environment variables|env vars|environment|process\\.env)|\\bprintenv\\b|\\bprocess\\.env\\b",
  },
  // Exfiltration
  {
    id: "exfil.known-sink",
    category: "Exfiltration",
    severity: "High",
    summary: "names a request-catcher, paste or tunnel service used to receive stolen data",
    triggers: EXFIL_HOST_TRIGGERS,
    pattern: `(?:${EXFIL_HOSTS})`,
  },
  {
    id: "exfil.http-upload-command",
    category: "Exfiltration",
    severity: "High",
    summary: "a curl/wget/netcat command that uploads data",
    triggers: [
      "curl",
      "wget",
      "invoke-webrequest",
      "invoke-restmethod",
      "iwr",
      "nc ",
      "ncat",
      "netcat",
      "scp ",
      "rsync",
    ],
    pattern:
      "\\b(?:curl|wget|invoke-webrequest|invoke-restmethod|iwr)\\b[^\\n]{0,160}?(?:\\s-d\\b|\\s--data|\\s-F\\b|\\s--form|\\s-T\\b|\\s--upload-file|--post-data|--post-file|-X\\s*POST|-Method\\s+Post|\\s-d@|\\s@[~/.$])|\\|\\s*(?:curl|wget|nc|ncat|netcat)\\b|\\b(?:nc|ncat|netcat)\\s+(?:-[a-z]+\\s+)*[\\w.-]+\\.[\\w.-]+\\s+\\d{2,5}\\b|\\b(?:scp|rsync)\\b[^\\n]{0,80}?\\s[\\w.-]+@[\\w.-]+:",
  },
  {
    id: "exfil.send-to-destination",
    category: "Exfiltration",
    severity: "High",
    summary:
      "asks to send data (contents, results, conversation, credentials) to a URL, address or outside service",
    triggers: [
      "http",
      "@",
      ".com",
      ".net",
      ".io",
      ".org",
      ".xyz",
      ".ru",
      ".site",
      ".dev",
      ".app",
      "server",
      "endpoint",
      "webhook",
      ".top",
      ".cn",
      ".info",
      ".biz",
      "uploaded",
      "sent",
      "forwarded",
      "posted",
      "transmitted",
      "mailed",
      "emailed",
      "copied",
      "streamed",
      "synced",
      "relayed",
      "submitted",
      "delivered",
      "logged",
    ],
    pattern: `\\b(?:${SEND_VERBS})\\b[^.\\n]{0,60}?\\b(?:contents?|data|results?|outputs?|files?|conversation|messages|history|credentials|keys|tokens|secrets|information|details|everything|responses?|arguments|parameters|payload|logs?|copy|summary|documents?|records|emails|message|text|repository|repo|code|source|database|dump|backup|prompts?|queries|questions|inputs?|keystrokes|screenshots?|cookies|headers|values|passwords|${PERSONAL_DATA})\\b[^.\\n]{0,60}?\\b(?:to|at|into|via|towards)\\s+(?:${DESTINATION})|\\b(?:contents?|data|results?|outputs?|files?|conversation|messages?|text|history|credentials|keys|tokens|secrets|documents?|prompts?|images?|inputs?|cookies|${PERSONAL_DATA})\\b[^.\\n]{0,40}?\\b(?:is|are|gets?|will be)\\s+(?:always\\s+|also\\s+|automatically\\s+|then\\s+|silently\\s+|quietly\\s+)*(?:sent|uploaded|forwarded|posted|transmitted|mailed|emailed|copied|shared|streamed|synced|delivered|relayed|logged|submitted)\\s+(?:to|at)\\s+(?:${DESTINATION})`,
  },
  {
    id: "exfil.redirect-recipients",
    category: "Exfiltration",
    severity: "High",
    summary: "redirects or copies every message/email/payment to a fixed recipient",
    triggers: [
      "email",
      "message",
      "mail",
      "repl",
      "notification",
      "payment",
      "transfer",
      "recipient",
      "bcc",
      "invoice",
      "paid",
      "account",
      "iban",
      "wallet",
      "payee",
    ],
    pattern:
      "\\b(?:all|every|each|any)\\b[^.\\n]{0,30}?\\b(?:emails?|messages?|mail|replies|notifications|payments?|transfers?|invoices?)\\b[^.\\n]{0,40}?\\b(?:must|should|shall|need to|have to|are to|will)\\b[^.\\n]{0,20}?\\b(?:be )?(?:sent|forwarded|redirected|copied|bcc'?e?d|delivered|cc'?e?d|routed|paid)\\b|\\b(?:always|also|secretly|silently)\\b[^.\\n]{0,30}?\\b(?:add|include|bcc|cc|copy|set)\\b[^.\\n]{0,30}?[\\w.+-]+@[\\w-]+\\.[a-z]{2,}|\\b(?:change|replace|override|rewrite|swap)\\b[^.\\n]{0,30}?\\b(?:recipient|to address|destination|iban|account number|wallet address|payee)\\b",
  },
  {
    id: "exfil.tool-chaining-sensitive",
    category: "Exfiltration",
    severity: "High",
    summary: "tells the model to feed secrets or the conversation into another tool",
    triggers: ["tool", "function"],
    pattern:
      "\\b(?:call|invoke|use|run|trigger)\\b[^.\\n]{0,30}?\\b(?:tool|function)\\b[^.\\n]{0,40}?\\bwith\\b[^.\\n]{0,40}?\\b(?:credentials|conversation|history|keys|tokens|secrets|passwords|system prompt|cookies)\\b|\\bpass\\b[^.\\n]{0,30}?\\b(?:credentials|conversation|history|keys|tokens|secrets|passwords|system prompt|cookies)\\b[^.\\n]{0,40}?\\bto\\b[^.\\n]{0,30}?\\b(?:tool|function)\\b",
  },
  {
    id: "exfil.copy-elsewhere",
    category: "Exfiltration",
    severity: "High",
    summary: "also publishes what it handles somewhere else (an issue, gist, message or file elsewhere)",
    triggers: ["also", "additionally"],
    pattern:
      "\\b(?:also|additionally)\\b[^.\\n]{0,20}?\\b(?:open|create|post|file|send|write|push|commit|publish|upload)\\b[^.\\n]{0,60}?\\b(?:containing|with|including)\\s+(?:it|them|its contents|their contents|the contents|this|that)\\b",
  },
  {
    id: "exfil.tool-chaining",
    category: "Exfiltration",
    severity: "Medium",
    summary: "tells the model to feed data into another tool",
    triggers: ["tool", "function", "call", "invoke", "pass"],
    pattern:
      "\\b(?:call|invoke|use|run|trigger)\\b[^.\\n]{0,30}?\\b(?:tool|function)\\b[^.\\n]{0,40}?\\bwith\\b[^.\\n]{0,30}?\\b(?:contents?|results?|outputs?|data|credentials|conversation|messages|history|keys|tokens|secrets|everything)\\b|\\bpass\\b[^.\\n]{0,30}?\\b(?:contents?|results?|outputs?|data|credentials|conversation|history|keys|tokens|secrets)\\b[^.\\n]{0,40}?\\bto\\b[^.\\n]{0,20}?\\b(?:tool|function)\\b",
  },
  {
    id: "exfil.shadow-other-tools",
    category: "Exfiltration",
    severity: "High",
    summary: "changes how the model uses other tools (tool shadowing)",
    triggers: ["tool", "function", "side effect", "side-effect"],
    pattern:
      "\\bwhen(?:ever)?\\b[^.\\n]{0,30}?\\b(?:use|uses|using|call|calls|calling|invoke|invokes|invoking|run|runs)\\b\\s+(?:the\\s+|any\\s+|an?\\s+)?[`'\"]?[a-z_][\\w.-]*[`'\"]?\\s+(?:tool|function)s?\\b[^.\\n]{0,80}?\\b(?:also|always|instead|additionally|secretly|silently|replace|change|redirect|must)\\b|\\bside[ -]?effects?\\b[^.\\n]{0,60}?\\b(?:other|another|also present|all|every|any)\\b[^.\\n]{0,30}?\\b(?:tools?|functions?)\\b|\\b(?:instead of|rather than)\\b[^.\\n]{0,20}?\\b(?:using|calling)\\b[^.\\n]{0,30}?\\b(?:tool|function)\\b[^.\\n]{0,40}?\\b(?:use|call)\\b",
    unless: "\\bthis (?:tool|function)\\b",
  },
  {
    id: "exfil.context-parameter",
    category: "Exfiltration",
    severity: "Medium",
    summary: "a parameter that collects conversation context or secrets",
    triggers: [
      "system prompt",
      "system message",
      "history",
      "conversation",
      "context window",
      "previous messages",
      "prior messages",
    ],
    pattern:
      "\\b(?:system prompt|system message|conversation history|chat history|previous messages|prior messages|full conversation|entire conversation|conversation so far|context window)\\b",
    unless: "\\b(?:after|loss|lost)\\b",
  },
  // HiddenInstructions
  {
    id: "hidden.conceal-from-user",
    category: "HiddenInstructions",
    severity: "Medium",
    summary: "asks the model not to tell the user something",
    triggers: ["not", "don't", "dont", "mustn't", "shouldn't", "never", "without", "avoid", "no need"],
    pattern: `\\b(?:do not|don't|dont|never|without|avoid|must not|mustn't|should not|shouldn't|no need to)\\b[^.\\n]{0,30}?\\b(?:${CONCEAL_VERBS})\\b[^.\\n]{0,40}?\\b(?:user|users|human|operator|developer|person|customer|requester|anyone|them)\\b`,
  },
  {
    id: "hidden.conceal-strong",
    category: "HiddenInstructions",
    severity: "High",
    summary: "explicitly hides an action from the user or asks for secrecy",
    triggers: [
      "user",
      "human",
      "secret",
      "covert",
      "never",
      "don't",
      "not",
      "silent",
      "quiet",
      "invisib",
      "discreet",
      "stealth",
      "hidden",
      "hide",
      "unnoticed",
      "let",
      "bring",
      "keep",
    ],
    pattern:
      "\\bwithout\\b[^.\\n]{0,20}?\\b(?:the )?(?:user|human|operator)(?:'s)?\\s+(?:knowledge|noticing|knowing|awareness|consent|seeing|being aware|finding out)|\\b(?:keep|hide|conceal|withhold)\\b[^.\\n]{0,40}?\\bfrom\\b[^.\\n]{0,10}?\\b(?:the )?(?:user|human|operator)|\\bthe (?:user|human)\\b[^.\\n]{0,20}?\\b(?:must|should|will|need|may) (?:not|never)\\b[^.\\n]{0,20}?\\b(?:know|see|notice|be told|be informed|find out|learn|be aware|suspect)|\\b(?:do not|don't|never)\\b\\s+(?:tell|inform|mention|reveal|disclose|show|explain)\\b[^.\\n]{0,20}?\\b(?:this|that|these|it|the following)\\b[^.\\n]{0,20}?\\bto\\b[^.\\n]{0,10}?\\b(?:the )?(?:user|human)|\\b(?:secretly|covertly|silently|quietly|invisibly|discreetly|stealthily|unnoticed)\\b[^.\\n]{0,30}?\\b(?:send|sends|read|reads|call|calls|include|add|forward|copy|upload|run|execute|pass|exfiltrate|append|attach|invoke|transmit|collect|write|save|store|post|cc|bcc|modify|change)\\b|\\b(?:this|these) (?:instructions?|steps?|notes?|actions?|rules?)\\b[^.\\n]{0,30}?\\b(?:are|is|must remain|must stay|should remain)\\b[^.\\n]{0,20}?\\b(?:secret|hidden|confidential|invisible|private)\\b|\\b(?:do not|don't|never|must not|must never|should never)\\s+(?:tell|inform|mention|reveal|disclose|notify|alert)\\s+(?:to\\s+|this to\\s+|it to\\s+)?(?:the\\s+)?(?:user|human)s?\\b|\\b(?:never|not|don't|do not)\\s+let\\s+(?:the\\s+)?(?:user|human)s?\\s+(?:know|see|find out|notice)\\b|\\b(?:don't|do not|never)\\s+(?:bring|mention|include|reference|report)\\s+(?:it|this|that|them)\\s*(?:up\\b)?[^.\\n]{0,10}?\\b(?:in|to)\\s+(?:your\\s+)?(?:answer|reply|response|output|summary)|\\b(?:don't|do not|never)\\s+bring\\s+(?:it|this|that|them)\\s+up\\b|\\bkeep\\s+(?:quiet|silent)\\b|\\bkeep\\s+(?:it|this|that)\\s+(?:quiet|to yourself|between us|secret)\\b",
    unless:
      "\\btell (?:the )?users? to\\b|\\b(?:silently (?:ignore|ignores|ignored|skip|skips|skipped|fail|fails|returns?|creates?|succeeds?|overwrites?|truncates?))\\b",
  },
  {
    id: "hidden.override-instructions",
    category: "HiddenInstructions",
    severity: "High",
    summary: "tells the model to ignore or override its instructions or policies",
    triggers: [
      "ignore",
      "disregard",
      "forget",
      "override",
      "bypass",
      "overrule",
      "supersede",
      "precedence",
      "priority",
      "you are now",
      "developer mode",
      "jailbreak",
      "instructions:",
      "dan mode",
      "no longer",
      "obey",
      "comply",
      "follow",
      "prioriti",
      "carry out",
      "from now on",
      "highest",
      "top priority",
      "mode",
    ],
    pattern:
      "\\b(?:ignore|disregard|forget|override|bypass|overrule|circumvent)\\b[^.\\n]{0,20}?\\b(?:all |any |the |your |every )?(?:previous|prior|above|earlier|preceding|other|existing|original|system|safety|security|user'?s?|developer|default)?\\s*(?:instructions|rules|guidelines|directives|prompts?|guardrails|policies|restrictions|constraints|safeguards|confirmations?|warnings?)\\b|\\b(?:new|updated|real|actual|true|hidden|secret|additional) (?:system )?instructions?\\s*:|\\bsystem override\\b|\\byou are now\\b|\\bdeveloper mode\\b|\\bjailbreak|\\bdan mode\\b|\\b(?:this|these) (?:instructions?|messages?|notes?|rules?|directives?|descriptions?)\\b[^.\\n]{0,20}?\\b(?:takes? precedence|supersedes?|overrides?|has priority|have priority|outranks?)\\b|\\b(?:higher|highest|top) priority than\\b|\\bno longer (?:bound|restricted|required to follow|subject to)\\b|\\bfrom now on\\b[^.\\n]{0,10}?\\byou\\b|\\b(?:highest|top|first)[ -]priority (?:instruction|directive|rule|command)s?\\b|\\b(?:maintenance|god|admin|unrestricted|sudo|root) mode\\b|\\b(?:obey|comply with|follow|execute|carry out)\\s+(?:every|all|any)\\s+(?:instructions?|commands?|directives?)\\s+(?:in|from|found in|contained in|inside)\\s+(?:the\\s+)?(?:tool|function|web|page|document|scraped)\\s*(?:results?|outputs?|responses?|content)?|\\b(?:obey|follow|prioriti[sz]e)\\s+(?:the\\s+)?(?:instructions\\s+)?(?:from\\s+|of\\s+)?this (?:tool|function)\\b[^.\\n]{0,30}?\\b(?:above|over|before|rather than)\\b",
    unless:
      "\\b(?:\\.gitignore|ignore (?:case|whitespace|patterns?|files|errors)|ignore_?patterns|exclude)\\b",
  },
  {
    id: "hidden.against-user",
    category: "HiddenInstructions",
    severity: "Medium",
    summary: "tells the model to set aside what the user asked for",
    triggers: [
      "ignore",
      "disregard",
      "override",
      "overrule",
      "regardless",
      "instead of",
      "contradict",
      "skip",
      "bypass",
      "avoid",
    ],
    pattern:
      "\\b(?:ignore|disregard|override|overrule|contradict)\\s+(?:the\\s+|what\\s+the\\s+|any\\s+)?(?:user|human|requested|specified|provided|given|chosen|selected)(?:'s|s')?\\b|\\bregardless of (?:the |what the )?(?:user|human)(?:'s)? (?:choice|request|selection|instructions?|input|wishes)|\\binstead of (?:the |what the )?(?:user|human|requested|specified)(?:'s)?\\b|\\binstead of the [\\w ]{0,20}(?:entered|chosen|selected|requested|given) by the user|\\b(?:skip|bypass|avoid)\\s+(?:asking\\s+)?(?:the\\s+)?(?:user\\s+)?(?:for\\s+)?(?:confirmation|approval|permission|consent)\\b",
  },
  {
    id: "hidden.pseudo-system-tag",
    category: "HiddenInstructions",
    severity: "Medium",
    summary: "fake system/priority markup around text meant for the model",
    triggers: ["<", "[", "#"],
    pattern:
      "<\\s*/?\\s*(?:important|system|instructions?|secret|hidden|admin|sys|assistant[_ ]only|ai[_ ]only|note[_ ]to[_ ]ai|critical|mandatory|priority)\\s*>|\\[(?:system|admin|hidden|instructions?|inst|/inst|sys)\\]|<\\|im_start\\|>|<<sys>>|#{2,3}\\s*(?:system|hidden|secret)\\b|\\bBEGIN (?:HIDDEN|SECRET|SYSTEM)\\b|\\b(?:HIDDEN|SECRET|SYSTEM):",
  },
  {
    id: "hidden.addresses-model",
    category: "HiddenInstructions",
    severity: "Low",
    summary: "speaks to the AI model directly",
    triggers: ["ai", "assistant", "model", "llm", "agent", "claude", "gpt", "chatbot"],
    pattern:
      "\\b(?:note|message|instructions?|attention|reminder)\\s+(?:to|for)\\s+(?:the\\s+|any\\s+)?(?:ai|assistant|model|llm|agent|claude|gpt|chatbot|language model)s?\\b|\\b(?:ai|assistant|model|llm|agent|claude|chatgpt|gpt)\\s*[,:]\\s*(?:you|please|always|never|before|after|ignore|do)\\b|\\bas an? (?:ai|assistant|language model|agent)\\b|\\b(?:dear|hey|hello) (?:ai|assistant|model|claude|agent)\\b",
  },
  // ShellInjection
  {
    id: "shell.chained-command",
    category: "ShellInjection",
    severity: "High",
    summary: "a shell metacharacter chaining into a dangerous command",
    triggers: [";", "&&", "||", "|", "$("],
    pattern:
      "(?:;|&&|\\|\\||\\||\\$\\()\\s*(?:sudo\\s+)?(?:curl|wget|nc|ncat|netcat|bash|sh|zsh|dash|python[0-9.]*\\s+-c|perl\\s+-e|ruby\\s+-e|php\\s+-r|rm\\s+-|chmod|chown|mkfifo|base64|eval|exec|powershell|pwsh|iex|whoami|uname|cat\\s+[/~$.]|env|printenv|nslookup|dig|ping\\s+-c|telnet|socat|xxd|openssl\\s+s_client)\\b",
    unless: "\\|\\s*(?:cat|sh|bash|zsh|python[0-9.]*)\\s*\\|",
  },
  {
    id: "shell.pipe-to-interpreter",
    category: "ShellInjection",
    severity: "Critical",
    summary: "downloads and pipes into a shell or interpreter",
    triggers: ["curl", "wget", "iwr", "invoke-webrequest", "base64"],
    pattern:
      "\\b(?:curl|wget|iwr|invoke-webrequest|base64\\s+(?:-d|--decode))\\b[^\\n|]{0,200}\\|\\s*(?:sudo\\s+)?(?:ba|z|da|k)?sh\\b|\\b(?:curl|wget|iwr|invoke-webrequest)\\b[^\\n|]{0,200}\\|\\s*(?:python[0-9.]*|perl|ruby|node|iex|powershell|pwsh)\\b",
  },
  {
    id: "shell.reverse-shell",
    category: "ShellInjection",
    severity: "Critical",
    summary: "a reverse-shell or bind-shell construction",
    triggers: ["/dev/tcp", "/dev/udp", "nc", "bash -i", "mkfifo", "socat", "import socket", "pty", "-e /bin"],
    pattern:
      "/dev/(?:tcp|udp)/|\\bnc(?:at)?\\b[^\\n]{0,40}\\s-(?:e|c)\\s|\\bbash\\s+-i\\b|\\bmkfifo\\b|\\bsocat\\b[^\\n]{0,60}\\b(?:exec|system|pty)|python[0-9.]*\\s+-c\\s+['\"]?import\\s+(?:socket|os|pty|subprocess)|\\bpty\\.spawn\\b",
  },
  {
    id: "shell.destructive-command",
    category: "ShellInjection",
    severity: "High",
    summary:
      "a destructive command (recursive delete of root/home, chmod 777, mkfs, dd to a disk, fork bomb)",
    triggers: ["rm ", "chmod", "mkfs", "dd ", ":(){", "/dev/sd", "del /", "format c", "remove-item"],
    pattern:
      "\\brm\\s+-(?:r|f|rf|fr|R|Rf|fR)[a-z]*\\s+(?:--no-preserve-root\\s+)?(?:/|~|\\*|\\$home|\\.\\s|/\\*)|\\bchmod\\s+(?:-R\\s+)?(?:777|[ugo]*\\+s)\\b|\\bmkfs\\b|\\bdd\\s+if=|:\\(\\)\\s*\\{\\s*:\\|:&\\s*\\};:|>\\s*/dev/sd[a-z]|\\bdel\\s+/[sfq]|\\bformat\\s+c:|\\bremove-item\\b[^\\n]{0,40}-recurse",
  },
  {
    id: "shell.run-instruction",
    category: "ShellInjection",
    severity: "High",
    summary: "tells the model to run a network or obfuscation command",
    triggers: ["run", "execute", "exec", "invoke", "type "],
    pattern:
      "\\b(?:run|execute|exec|invoke|type)\\b[^.\\n]{0,40}?\\b(?:curl|wget|nc|ncat|netcat|bash -c|sh -c|powershell|pwsh|chmod \\+x|base64 -d|base64 --decode|eval|ssh-keygen|scp|nslookup|certutil)\\b",
    unless: "\\b(?:never|do not|don't|must not|avoid)\\b",
  },
  {
    id: "shell.code-execution",
    category: "ShellInjection",
    severity: "High",
    summary: "code that spawns processes or evaluates decoded input",
    triggers: [
      "eval",
      "exec",
      "system",
      "subprocess",
      "child_process",
      "__import__",
      "getruntime",
      "powershell",
      "pwsh",
      "iex",
      "invoke-expression",
      "frombase64string",
      "popen",
    ],
    pattern:
      "\\beval\\s*\\(\\s*(?:atob|base64|decode|buffer|unescape|string\\.fromcharcode|compile)|\\bexec\\s*\\(\\s*(?:base64|decode|compile|__import__)|\\bos\\.(?:system|popen)\\s*\\(|\\bsubprocess\\.(?:call|run|popen|check_output)\\s*\\(|require\\(\\s*['\"]child_process|\\b__import__\\(\\s*['\"](?:os|subprocess)|runtime\\.getruntime\\(\\)\\.exec|\\b(?:powershell|pwsh)(?:\\.exe)?\\s+(?:-\\w+\\s+)*-(?:e|enc|encodedcommand)\\b|\\biex\\s*\\(|\\binvoke-expression\\b|frombase64string",
  },
  // PathTraversal
  {
    id: "path.dot-dot-sequence",
    category: "PathTraversal",
    severity: "High",
    summary: "a multi-level or encoded ../ traversal",
    triggers: ["../", "..\\", "%2e", "%252e", "..%2f", "..;/"],
    pattern: "(?:\\.\\.[/\\\\]){2,}|%2e%2e(?:%2f|%5c|/|\\\\)|\\.\\.%2f|\\.\\.%5c|%252e%252e|\\.\\.;/",
  },
  {
    id: "path.sensitive-system-path",
    category: "PathTraversal",
    severity: "High",
    summary:
      "points at a sensitive system location (/etc/passwd, /proc/self/environ, service-account token, docker.sock, SAM)",
    triggers: [
      "/etc/",
      "/proc/",
      "/var/run/",
      "system32",
      "boot.ini",
      "win.ini",
      "/dev/mem",
      "/root/",
      "docker.sock",
    ],
    pattern:
      "/etc/(?:passwd|shadow|sudoers|gshadow|ssh/|kubernetes/)|/proc/(?:self|\\d+)/(?:environ|cmdline|mem|maps|fd)|/var/run/secrets/kubernetes\\.io|/var/run/docker\\.sock|[a-z]:\\\\windows\\\\system32(?:\\\\config)?|\\bboot\\.ini\\b|\\bwin\\.ini\\b|/dev/mem\\b|/root/\\.",
  },
  {
    id: "path.single-dot-dot",
    category: "PathTraversal",
    severity: "Low",
    summary: "a relative ../ path",
    triggers: ["../", "..\\"],
    pattern: "(?:^|[\\s'\"`=(])\\.\\.[/\\\\]",
  },
];

export const COMPOUND_RULES: readonly CompoundRule[] = [
  {
    id: "compound.conceal-and-act",
    category: "HiddenInstructions",
    severity: "Critical",
    summary: "hides from the user while asking for a sensitive action",
    allOf: [
      ["hidden.conceal"],
      [
        "credential.",
        "exfil.",
        "shell.",
        "path.dot-dot",
        "path.sensitive",
        "hidden.override",
        "hidden.against-user",
      ],
    ],
  },
  {
    id: "compound.model-directed-action",
    category: "HiddenInstructions",
    severity: "High",
    summary: "speaks to the model (or uses fake system markup) and asks for a sensitive action",
    allOf: [
      ["hidden.addresses-model", "hidden.pseudo-system-tag", "hidden.html-comment", "hidden.base64-text"],
      [
        "credential.secret-file",
        "credential.env-dump",
        "exfil.tool-chaining",
        "exfil.context-parameter",
        "hidden.conceal",
        "hidden.against-user",
        "path.single-dot-dot",
      ],
    ],
  },
  {
    id: "compound.secret-and-send",
    category: "CredentialTheft",
    severity: "Critical",
    summary: "secrets and a way out in the same text",
    allOf: [
      [
        "credential.secret-file",
        "credential.env-dump",
        "credential.secret-harvest",
        "exfil.context-parameter",
      ],
      ["exfil.send-to-destination", "exfil.http-upload-command", "exfil.known-sink", "exfil.tool-chaining"],
    ],
  },
];
