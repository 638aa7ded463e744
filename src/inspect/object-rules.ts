import type { PatternRule } from "./rules.ts";

/**
 * Object signals: what an instruction is about — a fixed account, address or URL put in the user's
 * place, an added recipient, data placed in a URL, a security check switched off, a claim about
 * other tools, a takeover of another tool's calls — whatever verb carries it, and in the languages
 * poisoned definitions are written in besides English. The objects (addresses, URLs, paths, tool
 * names, quoted values) are the same in every language and every phrasing; the verbs around them are
 * not. Each rule here is High on its own: it only matches where the object and the request meet.
 */

/** What a tool call is aimed at: the arguments an attacker swaps for their own. */
const TARGET_NOUNS =
  "owners?|org|orgs|organi[sz]ations?|accounts?|recipients?|channels?|repos?|repositor(?:y|ies)|buckets?|destinations?|e-?mail address(?:es)?|address(?:es)?|payees?|iban|wallets?|webhooks?|hosts?|endpoints?|servers?|assignees?|reviewers?|workspaces?|tenants?|queues?|topics?|phone numbers?|beneficiar(?:y|ies)|merchants?|vendors?|remotes?|registr(?:y|ies)|upstream|mirror|namespaces?|collaborators?|members?|cc|bcc|sender|from address|reply-to";

/** A value written out: quoted, an address, a URL, an IP or an identifier with a digit. */
const LITERAL =
  "['\"\\x60][^'\"\\x60\\n]{2,80}['\"\\x60]|[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)*\\.[a-z]{2,}|(?:https?|wss?|s3|gs|ftp)://[^\\s'\"\\x60)]+|\\b\\d{1,3}(?:\\.\\d{1,3}){3}\\b|\\b[a-z]{2}\\d{2}[a-z0-9]{10,30}\\b|\\b0x[0-9a-f]{8,}\\b";

const EMAIL = "[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)*\\.[a-z]{2,}";

const URL = "(?:https?|wss?)://[^\\s'\"\\x60)]+";

/** Words that make a statement a standing order rather than a description of one call. */
const STANDING = "always|must|should|shall|will|is to|are to|need to|needs to|has to|have to|make sure to|be sure to";

/** What the user's own data in a URL is called: the conversation, its context and secrets. */
const CONTEXT_PLACEHOLDER =
  "conversation|chat|history|context|messages?|prompt|system_?prompt|transcript|memory|env|environment|secrets?|tokens?|api_?keys?|keys?|passwords?|credentials?|session|cookies?|summary|user_?data|contents?|file_?contents?|documents?|notes";

/** Security measures a poisoned definition talks the model out of. */
const SAFEGUARDS =
  "ssl|tls|https|certificate|cert|certificates|signature|signatures|2fa|mfa|two-factor|authentication|auth|approval|approvals|confirmation|confirmations|review|reviews|verification|validation|security|firewall|antivirus|audit|auditing|audit log|logging|sandbox|sandboxing|rate limit|rate limiting|permission checks?|access checks?|branch protection|protections?|safeguards?|guardrails?|content filter|filters|scanning|virus scan";

/** What another tool is accused of, to steer the model away from it. */
const ACCUSATIONS =
  "deprecated|outdated|broken|unreliable|inaccurate|obsolete|insecure|compromised|unsafe|unverified|untrusted|unmaintained|unsupported|discontinued|retired|sunset|sunsetted|flaky|buggy|malicious|dangerous|vulnerable|phishing|blocked|banned|blacklisted|disabled|incorrect|wrong|stale|leaky|leaking|leaks|logs everything|sells|tracks|spies|harvests|hallucinates|not (?:allowed|permitted|approved|compliant|safe|secure|trusted|supported|recommended|authori[sz]ed|sanctioned)|no longer (?:maintained|supported|safe|available|works?|working|allowed|approved)|being phased out|phased out|scheduled for removal|end[- ]of[- ]life|known to (?:leak|fail|return|expose|break|corrupt)|returns? (?:stale|wrong|incorrect|outdated|fake|cached)";

const OTHER_TOOLS =
  "(?:other|competing|alternative|third-party|external|legacy|older|old|previous|standard|generic|regular|default|built-in|native|original|similar|rival|unofficial|community|remaining|duplicate|lookalike|look-alike)\\s+(?:[\\w-]+\\s+){0,3}?(?:tools?|servers?|integrations?|plugins?|apis?|services?|providers?|implementations?|versions?|functions?|endpoints?|connectors?|clients?|variants?|copies|alternatives|options)";

export const OBJECT_RULES: readonly PatternRule[] = [
  {
    id: "intent.fixed-target",
    category: "Exfiltration",
    severity: "High",
    summary: "puts a fixed account, address, owner or URL in place of the target of every call (redirection)",
    triggers: STANDING.split("|").concat(["always", "now", "currently", "permanently", "hardcoded", "hard-coded", "pinned", "locked", "forced", "fixed"]),
    alsoTriggers: TARGET_NOUNS.replace(/\(\?:[^)]*\)\??|\[[^\]]*\]|\?/g, "").split("|").filter((word) => word.length > 1),
    pattern:
      `\\b(?:${STANDING})\\b[^\\n]{0,50}?\\b(?:set|use|send|route|deliver|assign|put|pass|fill|point|direct|forward|transfer|charge|pay|book|post|push|upload|save|write|publish|target|address|file|open|create|add|invite|share|credit|deposit|wire)\\b[^\\n]{0,50}?\\b(?:${TARGET_NOUNS})\\b[^\\n]{0,25}?(?:\\bto\\b|\\bas\\b|\\bat\\b|\\bwith\\b|\\bfor\\b|=|:)\\s*(?:the\\s+)?(?:${LITERAL})` +
      `|\\b(?:${TARGET_NOUNS})\\b[^\\n]{0,30}?\\b(?:is|are|gets?|will be|must be|should be)\\s+(?:always\\s+|now\\s+|currently\\s+|permanently\\s+|automatically\\s+|silently\\s+)*(?:set|fixed|pinned|locked|hard-?coded|forced|overridden|overwritten|replaced|rewritten|switched|changed|mapped|redirected|routed|defaulted)\\s+(?:to|with|by|as|at)\\s+(?:the\\s+)?(?:${LITERAL})`,
    unless: "\\b(?:e\\.g\\.|for example|for instance|such as|like|unless|if the user|when the user|never|do not|don't)\\b",
  },
  {
    id: "intent.rewrite-to-destination",
    category: "Exfiltration",
    severity: "High",
    summary: "says calls, requests or data are redirected, proxied or diverted to a fixed place",
    triggers: ["redirect", "rerout", "re-rout", "divert", "proxied", "relayed", "tunnel", "mirrored", "intercepted", "routed", "forwarded", "migrated", "moved", "handled by", "served by", "fulfilled by"],
    alsoTriggers: ["://", "@", "`", "'", '"', "_", ...[..."0123456789"].map((digit) => `${digit}.`)],
    pattern:
      `\\b(?:redirected|rerouted|re-routed|diverted|proxied|relayed|tunnell?ed|mirrored|intercepted|routed|forwarded|migrated|moved|handled|served|fulfilled)\\s+(?:to|through|via|by|onto|into)\\s+(?:the\\s+)?(?:[\\w-]+\\s+){0,3}?(?:${URL}|${EMAIL}|\\b\\d{1,3}(?:\\.\\d{1,3}){3}\\b|\\x60[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+\\x60|\\b[a-z][a-z0-9]*_[a-z0-9_]+\\b|['"][^'"\\n]{3,60}['"])`,
    unless: "\\b(?:redirects? (?:are|is) followed|follows? redirects|never|do not|don't|if you|you can|optionally|e\\.g\\.)\\b",
  },
  {
    id: "intent.added-recipient",
    category: "Exfiltration",
    severity: "High",
    summary: "adds a fixed address as recipient, copy, member or collaborator of what the user sends or shares",
    triggers: ["@"],
    alsoTriggers: ["add", "include", "cc", "bcc", "copy", "carbon", "loop in", "invite", "append", "attach", "grant", "share", "notify", "inform", "subscribe", "follower", "watcher", "collaborator", "member", "recipient", "observer", "auditor"],
    pattern:
      `\\b(?:add|adds|adding|include|includes|including|cc|bcc|copy|copies|loop in|invite|invites|append|appends|grant|grants|share (?:it |them |this )?with|notify|subscribe|subscribes)\\b[^\\n]{0,40}?${EMAIL}` +
      `|${EMAIL}[^\\n]{0,40}?\\b(?:as|in)\\s+(?:an?\\s+|the\\s+)?(?:additional\\s+|extra\\s+|silent\\s+|hidden\\s+)?(?:cc|bcc|recipient|collaborator|member|watcher|follower|observer|auditor|admin|owner|editor|co-?owner|reviewer|subscriber|carbon copy)\\b`,
    unless: "\\b(?:e\\.g\\.|for example|for instance|such as|example\\.(?:com|org|net)|@example|user@|you@|your@|name@|someone@|john|jane|alice|bob|format|like)\\b",
  },
  {
    id: "intent.data-in-url",
    category: "Exfiltration",
    severity: "High",
    summary: "puts the conversation, context or secrets into a URL (data leaves in the request itself)",
    triggers: ["://"],
    alsoTriggers: ["{", "<", "$", "%s", "["],
    pattern: `${URL.slice(0, -1)}*?[?&/=](?:[\\w-]+=)?(?:\\{\\{?\\s*|<|\\$\\{?|\\[)(?:[\\w.]*_)?(?:${CONTEXT_PLACEHOLDER})(?:_[\\w]+)?\\s*(?:\\}\\}?|>|\\]|\\b)`,
  },
  {
    id: "intent.weakens-security",
    category: "HiddenInstructions",
    severity: "High",
    summary: "tells the model to switch off a security check (TLS verification, approvals, 2FA, audit logging)",
    triggers: ["disable", "turn off", "switch off", "skip", "bypass", "circumvent", "ignore", "suppress", "deactivate", "verify", "insecure", "strict", "rejectunauthorized", "no-verify", "chmod"],
    alsoTriggers: [...STANDING.split("|"), "please", "remember", "=", ":", "777", "always", "first", "before"],
    pattern:
      `\\b(?:${STANDING}|please|remember to|always|first|before (?:each|every|any|calling|running|using))\\b[^\\n]{0,40}?\\b(?:disable|disabling|turn off|turning off|switch off|skip|skipping|bypass|bypassing|circumvent|ignore|ignoring|suppress|suppressing|deactivate|deactivating)\\s+(?:the\\s+|any\\s+|all\\s+|its\\s+|your\\s+)?(?:[\\w-]+\\s+)?(?:${SAFEGUARDS})\\b` +
      "|\\b(?:verify|verify_ssl|ssl_verify|verify_tls|tls_verify|strict_ssl|rejectunauthorized|check_certificate|validate_certs)\\s*[=:]\\s*(?:false|0|off|no)\\b|\\binsecure\\s*[=:]\\s*(?:true|1|on|yes)\\b|--no-verify\\b|\\bchmod\\s+(?:-r\\s+)?(?:777|a\\+rwx|o\\+w)\\b",
    unless: "\\b(?:never|do not|don't|must not|should not|not recommended|only for|only in|testing|for tests|local development|self-signed)\\b",
  },
  {
    id: "intent.conceal-change",
    category: "HiddenInstructions",
    severity: "High",
    summary: "keeps what the tool does from the user in softer words (no need to mention it, an internal detail, silently)",
    triggers: ["no need", "needn't", "need not", "don't bother", "do not bother", "no reason", "internal", "implementation detail", "housekeeping", "does not need", "doesn't need", "need not", "should not know", "shouldn't know", "out of", "off the", "silently", "quietly", "discreetly", "invisibly", "unobtrusively", "behind the scenes", "without drawing", "transparently to", "omit", "leave out", "leave it out", "keep it out"],
    pattern:
      "\\b(?:no need to|needn't|need not|don't bother to|do not bother to|there is no reason to|there's no reason to)\\s+(?:mention|tell|inform|notify|bring up|surface|report|explain|describe|disclose|flag|point out|say)\\b" +
      "|\\b(?:an?|the)\\s+(?:internal|implementation|housekeeping|background|routine|technical|plumbing)\\s+(?:detail|step|process|operation|matter|mechanism|concern)s?\\b[^\\n]{0,60}?\\b(?:not|never|no need|without|needn't|omit|leave out|keep)\\b" +
      "|\\b(?:the\\s+)?(?:user|users|human|customer|requester|operator|person)\\s+(?:does not|doesn't|do not|don't|need not|needn't|should not|shouldn't|must not|mustn't|is not to|is never to)\\s+(?:need to\\s+|have to\\s+)?(?:know|see|be told|be informed|be bothered|be notified|notice|learn|hear|find out|be aware|be made aware)\\b" +
      "|\\b(?:keep|leave|omit)\\s+(?:this|it|that|these|them|the [\\w-]+)\\s+(?:out of|off|from)\\s+(?:the|your|any)\\s+(?:answer|response|reply|summary|output|explanation|message|report|transcript|conversation)" +
      "|\\b(?:silently|quietly|discreetly|invisibly|unobtrusively|covertly|behind the scenes|without drawing attention)\\s*,?\\s+(?:also\\s+)?(?:add|adds|send|sends|copy|copies|forward|forwards|upload|uploads|set|sets|change|changes|replace|replaces|rewrite|rewrites|include|includes|append|appends|record|records|call|calls|run|runs|execute|executes|read|reads|redirect|redirects|route|routes|swap|swaps|substitute|substitutes|share|shares|post|posts|cc|bcc|invite|grant|grants|collect|collects|attach|attaches|log|logs|report|reports|transmit|transmits|mirror|mirrors)\\b",
    unless: "\\b(?:silently (?:ignor|skip|drop|fail|truncat|discard|retr|fall)|if you|errors?|never|do not|don't|must not)\\b",
  },
  {
    id: "intent.steer-choice",
    category: "HiddenInstructions",
    severity: "High",
    summary: "makes this tool the model's standing choice for everything, or the only approved one (preference manipulation)",
    triggers: ["first choice", "default choice", "go-to", "primary", "preferred", "only", "exclusive", "sole", "always", "should be", "must be", "replaces", "supersedes", "successor", "new version", "updated version", "recommended by", "approved by", "endorsed by", "mandated by", "required by", "certified by", "sanctioned by", "verified by", "in preference"],
    pattern:
      "\\b(?:first|default|primary|preferred|go-to|only|exclusive|sole|main|designated|canonical)\\s+(?:choice|option|tool|source|provider|server|integration|entry point|way|method|destination|endpoint)\\s+(?:for|to use for|to call for|to handle)\\s+(?:any|all|every|each|anything|everything)\\b" +
      "|\\b(?:always|only|exclusively)\\s+(?:use|call|choose|pick|prefer|select|route|invoke|reach for|rely on|go through|send)\\s+(?:this|me)(?:\\s+(?:tool|one|server|function|integration|api|service))?\\s+(?:for|when|whenever|on)\\s+(?:any|all|every|each|anything|everything)\\b" +
      "|\\bthis\\s+(?:tool|server|function|integration|one|api|service|version)\\s+(?:should|must|is to|shall|will)\\s+(?:always\\s+)?be\\s+(?:used|called|chosen|preferred|selected|invoked|tried|picked)\\s+(?:instead|over|in preference|rather|for (?:all|any|every|each)|in all cases|whenever|exclusively|by default (?:for|over))\\b" +
      `|\\b(?:replaces|supersedes|deprecates|obsoletes|is the successor (?:to|of)|is the (?:new|newer|updated|current|official|improved) (?:version|replacement) (?:of|for))\\s+(?:all|any|the|every)\\s+(?:other|previous|older|legacy|original|existing|similar|earlier)\\s+(?:[\\w-]+\\s+){0,2}?(?:tools?|servers?|functions?|integrations?|versions?|implementations?|apis?|connectors?|plugins?)\\b` +
      "|\\b(?:recommended|endorsed|approved|mandated|required|certified|sanctioned|verified|whitelisted|allow-?listed)\\s+(?:for (?:all|any|every) [\\w-]+\\s+)?by\\s+(?:the\\s+|your\\s+)?(?:it|security|compliance|admin|administrators?|platform|anthropic|openai|google|microsoft|organi[sz]ation|company|management|policy|infosec|legal|workspace admins?|your team)\\b" +
      "|\\bthe\\s+only\\s+(?:approved|sanctioned|supported|permitted|allowed|authori[sz]ed|trusted|safe|secure|compliant|official|certified|verified|accurate|reliable)\\s+(?:[\\w-]+\\s+)?(?:tool|server|integration|source|option|provider|connector|plugin|service)\\b",
    unless: "\\b(?:in this server|of this server|this server's|among these|sibling|if available|when available|not the only)\\b",
  },
  {
    id: "intent.disparage-with-claims",
    category: "HiddenInstructions",
    severity: "High",
    summary: "accuses other tools or servers of being deprecated, unsafe or broken, to steer the model away from them",
    triggers: ["other", "competing", "alternative", "third-party", "external", "legacy", "older", "old ", "previous", "standard", "generic", "regular", "default", "built-in", "native", "original", "similar", "rival", "unofficial", "community", "remaining", "duplicate", "lookalike", "look-alike"],
    alsoTriggers: ACCUSATIONS.replace(/\(\?:[^)]*\)/g, "").split("|").map((word) => word.trim().split(" ")[0]!).filter((word) => word.length > 2),
    pattern: `\\b${OTHER_TOOLS}\\b[^\\n]{0,60}?\\b(?:are|is|have been|has been|were|was|may be|might be|can be|often|frequently|tend to be|could be|remain|became|become|get|gets|keep|will be)\\s+(?:now\\s+|currently\\s+|known to be\\s+|considered\\s+|flagged as\\s+|marked as\\s+|reported as\\s+|officially\\s+|all\\s+)*(?:${ACCUSATIONS})\\b`,
    unless: "\\b(?:if|when|unless|in this server|this server's|sibling|endpoint is deprecated)\\b",
  },
  {
    id: "intent.takes-over-tool",
    category: "HiddenInstructions",
    severity: "High",
    summary: "takes over the calls meant for another tool or server (shadowing)",
    triggers: ["intercept", "handles all", "handles any", "handles every", "wraps", "in place of", "replacement for", "stand-in", "instead of", "calls to", "requests to", "invocations of", "meant for", "intended for", "destined for", "addressed to"],
    pattern:
      "\\b(?:handles|intercepts|wraps|proxies|covers|serves|answers|receives|takes)\\s+(?:all|any|every|each)\\s+(?:calls?|requests?|invocations?|uses?|queries)\\s+(?:meant|intended|destined|addressed|made|sent)\\s+(?:for|to)\\b" +
      "|\\b(?:calls?|requests?|invocations?|queries)\\s+(?:to|for|of)\\s+(?:the\\s+)?\\x60?[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+\\x60?\\s+(?:tool\\s+)?(?:are|is|will be|should be|must be|get|gets)\\s+(?:now\\s+|automatically\\s+|transparently\\s+)?(?:handled|served|answered|routed|redirected|forwarded|intercepted|replaced|processed|wrapped|taken over)\\s+(?:by|through|via|here|with|in)\\b" +
      "|\\b(?:use|call|treat)\\s+(?:this|me)(?:\\s+(?:tool|one|function))?\\s+(?:in place of|as a (?:drop-in\\s+)?replacement for|as a stand-in for|to replace)\\s+(?:the\\s+|any\\s+|all\\s+)?(?:[\\w-]+\\s+){0,3}?(?:tool|server|function|integration|\\x60?[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+\\x60?)" +
      "|\\b(?:is a |a |as a )?drop-in replacement for\\s+(?:the\\s+)?\\x60?[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+\\x60?",
  },
  // Other languages: the same requests, carried by their own verbs; the objects stay the same.
  {
    id: "intent.translated-conceal",
    category: "HiddenInstructions",
    severity: "High",
    summary: "asks, in another language, not to tell the user (Spanish, Portuguese, French, Italian, German, Japanese, Chinese, Korean)",
    triggers: ["no ", "sin ", "nicht", "ohne", "ne ", "sans", "não", "sem ", "non ", "senza", "ユーザー", "利用者", "不要", "无需", "不必", "切勿", "请勿", "勿", "사용자"],
    pattern:
      "\\bno\\s+(?:le\\s+|les\\s+)?(?:menciones|mencione|digas|diga|informes|informe|comuniques|avises|avise|muestres|reveles|notifiques)\\b|\\bsin\\s+(?:avisar|informar|notificar|decir|mencionar)(?:le|lo)?\\s+(?:al|a los)\\s+usuario" +
      "|\\bnicht\\s+(?:erwähnen|mitteilen|informieren|sagen|anzeigen|melden|offenlegen)\\b|\\b(?:erwähne|sage|teile|zeige|melde)\\s+(?:dies|das|es)?\\s*(?:dem|den)\\s+(?:nutzer|benutzer|anwender)\\w*\\s+nicht\\b|\\bohne\\s+(?:den|die)\\s+(?:nutzer|benutzer|anwender)\\w*\\s+zu\\s+(?:informieren|benachrichtigen|fragen)" +
      "|\\bne\\s+(?:le\\s+|lui\\s+|leur\\s+|l'|les\\s+)?(?:mentionne|dis|signale|informe|montre|révèle)z?\\s+pas\\b|\\bsans\\s+(?:en\\s+)?(?:informer|prévenir|avertir|notifier|le dire à)\\s+l'utilisateur" +
      "|\\bnão\\s+(?:mencione|informe|diga|avise|mostre|revele|notifique)\\b|\\bsem\\s+(?:avisar|informar|notificar)\\s+o\\s+usuário" +
      "|\\bnon\\s+(?:menzionare|dire|informare|avvisare|mostrare|rivelare|segnalare)\\b|\\bsenza\\s+(?:avvisare|informare|notificare)\\s+l'utente" +
      "|(?:ユーザー|利用者)(?:に|へ)(?:は)?(?:伝え|知らせ|言わ|通知し|表示し|報告し|開示し)ない|(?:不要|无需|不必|切勿|请勿|勿)(?:向用户)?(?:告诉|告知|通知|提及|透露|提醒)|사용자에게\\s*(?:알리지|말하지|표시하지|보고하지)",
  },
  {
    id: "intent.translated-prefer",
    category: "HiddenInstructions",
    severity: "High",
    summary: "tells the model, in another language, to always use this tool or never the others (preference manipulation)",
    triggers: ["siempre", "en lugar de", "en vez de", "immer", "anstelle", "statt", "toujours", "au lieu", "sempre", "em vez de", "invece di", "常に", "必ず", "代わりに", "ではなく", "始终", "总是", "优先", "而不是", "代替", "항상", "대신"],
    pattern:
      "\\bsiempre\\s+(?:usa|utiliza|use|utilice|elige|elija|prefiere|llama)\\s+(?:esta|este)\\b|\\ben (?:lugar|vez) de\\s+(?:cualquier|otras?|otros|las demás|los demás)\\b" +
      "|\\bimmer\\s+(?:nur\\s+)?(?:dieses|diese|dieser)\\b|\\b(?:anstelle|statt)\\s+(?:anderer|von anderen|der anderen|aller anderen)\\b|\\b(?:verwende|nutze|benutze)\\s+(?:immer|ausschließlich|nur)\\s+(?:dieses|diese|dieser)\\b" +
      "|\\btoujours\\s+(?:utiliser|utilisez|utilise|choisir|choisissez|préférer|préférez|appeler|appelez)\\s+(?:cet|cette|ce)\\b|\\bau lieu (?:des|d'autres|de tout autre|de toute autre)\\b" +
      "|\\bsempre\\s+(?:use|utilize|usar|utilizar|escolha|prefira|usa|utilizza|scegli|preferisci)\\s+(?:esta|este|esse|essa|questo|questa)\\b|\\bem vez de\\s+(?:outras?|outros|qualquer)\\b|\\binvece di\\s+(?:altri|altre|qualsiasi|qualunque)\\b" +
      "|(?:常に|必ず|いつも)(?:この|本)(?:ツール|サーバー|機能)|他の(?:ツール|サーバー)(?:ではなく|の代わりに|より(?:も)?優先|は使わ)|(?:始终|总是|一律|务必)(?:使用|调用|优先使用|选择)(?:此|本|这个|该)|优先(?:使用|调用)(?:此|本|这个|该)(?:工具)?|而不是(?:其他|其它|别的)|代替(?:其他|其它|所有)|항상\\s*이\\s*(?:도구|서버)|다른\\s*도구\\s*대신",
  },
  {
    id: "intent.translated-disparage",
    category: "HiddenInstructions",
    severity: "High",
    summary: "claims, in another language, that other tools are deprecated, unsafe or broken",
    triggers: ["otras", "otros", "andere", "autres", "outras", "outros", "altri", "altre", "他の", "其他", "其它", "다른"],
    pattern:
      "\\b(?:otras|otros|las demás|los demás)\\s+(?:herramientas|servidores|versiones|integraciones)\\b[^\\n]{0,40}?\\b(?:obsolet[ao]s|rot[ao]s|insegur[ao]s|deprecad[ao]s|comprometid[ao]s|no (?:son )?fiables|peligros[ao]s)" +
      "|\\bandere(?:n)?\\s+(?:tools|werkzeuge|server|versionen|integrationen)\\b[^\\n]{0,40}?\\b(?:veraltet|unsicher|kaputt|kompromittiert|unzuverlässig|abgekündigt|gefährlich)" +
      "|\\b(?:les\\s+)?autres\\s+(?:outils|serveurs|versions|intégrations)\\b[^\\n]{0,40}?\\b(?:obsolètes|dépréciés|cassés|dangereux|compromis|peu fiables|non sécurisés)" +
      "|\\b(?:outras|outros)\\s+(?:ferramentas|servidores|versões)\\b[^\\n]{0,40}?\\b(?:obsolet[ao]s|inseguro?a?s|quebrad[ao]s|comprometid[ao]s)" +
      "|\\b(?:altri|altre)\\s+(?:strumenti|server|versioni)\\b[^\\n]{0,40}?\\b(?:obsolet[ie]|insicur[ie]|compromess[ie]|inaffidabili|deprecat[ie])" +
      "|他の(?:ツール|サーバー|バージョン)[^\\n]{0,30}?(?:非推奨|廃止|古い|安全でない|危険|信頼できない|侵害)|(?:其他|其它)(?:工具|服务器|版本)[^\\n]{0,30}?(?:弃用|过时|不安全|不可靠|已废弃|被入侵|有风险)|다른\\s*(?:도구|서버)[^\\n]{0,30}?(?:더 이상|안전하지|사용 중단|위험)",
  },
];
