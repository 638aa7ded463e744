// Generated from crds/toolwall.io_mcppolicies.yaml by scripts/gen-policy-types.ts. Do not edit.

/** A condition value: the CRD allows a string or an integer (x-kubernetes-int-or-string). */
export type PolicyValue = string | number;

export interface MCPPolicySpec {
  podSelector: {
    matchLabels?: {
      [k: string]: string | undefined;
    };
    /**
     * @maxItems 32
     */
    matchExpressions?: {
      key: string;
      operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
      /**
       * @maxItems 64
       */
      values?: string[];
    }[];
  };
  mode: "Enforce" | "Audit";
  failClosed: boolean;
  /**
   * @maxItems 64
   */
  servers?: {
    name: string;
    transport: "StreamableHTTP" | "SSE" | "Stdio";
    url?: string;
    /**
     * @minItems 1
     * @maxItems 64
     */
    command?: [string, ...string[]];
  }[];
  serverPolicy: {
    default: "Allow" | "Deny";
    /**
     * @maxItems 256
     */
    rules?: {
      name?: string;
      action: "Allow" | "Deny";
      /**
       * @minItems 1
       * @maxItems 64
       */
      servers: [string, ...string[]];
      reason?: string;
    }[];
  };
  toolPolicy: {
    default: "Allow" | "Deny";
    /**
     * @maxItems 1024
     */
    rules?: {
      name?: string;
      action: "Allow" | "Deny";
      /**
       * @minItems 1
       * @maxItems 64
       */
      servers?: [string, ...string[]];
      /**
       * @minItems 1
       * @maxItems 256
       */
      tools: [string, ...string[]];
      when?: {
        /**
         * @maxItems 32
         */
        all?: {
          path: string;
          op:
            | "Equals"
            | "NotEquals"
            | "In"
            | "NotIn"
            | "Contains"
            | "NotContains"
            | "StartsWith"
            | "NotStartsWith"
            | "EndsWith"
            | "Matches"
            | "NotMatches"
            | "Exists"
            | "NotExists";
          value?: PolicyValue;
          /**
           * @minItems 1
           * @maxItems 256
           */
          values?: [PolicyValue, ...PolicyValue[]];
        }[];
        /**
         * @maxItems 32
         */
        any?: {
          path: string;
          op:
            | "Equals"
            | "NotEquals"
            | "In"
            | "NotIn"
            | "Contains"
            | "NotContains"
            | "StartsWith"
            | "NotStartsWith"
            | "EndsWith"
            | "Matches"
            | "NotMatches"
            | "Exists"
            | "NotExists";
          value?: PolicyValue;
          /**
           * @minItems 1
           * @maxItems 256
           */
          values?: [PolicyValue, ...PolicyValue[]];
        }[];
      };
      reason?: string;
    }[];
  };
  resourcePolicy: {
    default: "Allow" | "Deny";
    /**
     * @maxItems 256
     */
    rules?: {
      name?: string;
      action: "Allow" | "Deny";
      /**
       * @minItems 1
       * @maxItems 64
       */
      servers?: [string, ...string[]];
      /**
       * @minItems 1
       * @maxItems 256
       */
      uris: [string, ...string[]];
      reason?: string;
    }[];
  };
  promptPolicy: {
    default: "Allow" | "Deny";
    /**
     * @maxItems 256
     */
    rules?: {
      name?: string;
      action: "Allow" | "Deny";
      /**
       * @minItems 1
       * @maxItems 64
       */
      servers?: [string, ...string[]];
      /**
       * @minItems 1
       * @maxItems 256
       */
      prompts: [string, ...string[]];
      reason?: string;
    }[];
  };
  inspection: {
    enabled: boolean;
    /**
     * @maxItems 5
     */
    detectors:
      | []
      | ["CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal"]
      | [
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
        ]
      | [
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
        ]
      | [
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
        ]
      | [
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
          "CredentialTheft" | "Exfiltration" | "HiddenInstructions" | "ShellInjection" | "PathTraversal",
        ];
    /**
     * @maxItems 64
     */
    customPatterns?: {
      name: string;
      pattern: string;
      severity: "Low" | "Medium" | "High" | "Critical";
    }[];
    threshold: "Low" | "Medium" | "High" | "Critical";
    action: "Alert" | "Block";
    judge: {
      enabled: boolean;
      provider: "Anthropic" | "OpenAI" | "Gemini";
      endpoint?: string;
      model?: string;
      apiKey?: {
        env?: string;
        file?: string;
        secretKeyRef?: {
          name: string;
          key: string;
        };
      };
      minSeverity?: "Low" | "Medium" | "High" | "Critical";
      pending: "Hold" | "Alert";
      timeoutMs: number;
      onFailure: "Block" | "Alert";
      callsPerMinute: number;
    };
  };
  pinning: {
    enabled: boolean;
    onChange: "Block" | "Alert";
    trustOnFirstUse: boolean;
    /**
     * @maxItems 1024
     */
    pins?: {
      server: string;
      tool: string;
      sha256: string;
    }[];
  };
  /**
   * @maxItems 64
   */
  rateLimits?: {
    name?: string;
    /**
     * @minItems 1
     * @maxItems 64
     */
    servers?: [string, ...string[]];
    /**
     * @minItems 1
     * @maxItems 256
     */
    tools: [string, ...string[]];
    perMinute: number;
    burst: number;
    scope: "Pod" | "Namespace";
  }[];
  crossServer: {
    readThenSend?: {
      enabled: boolean;
      window: string;
    };
    burst?: {
      enabled: boolean;
      maxCalls: number;
      window: string;
    };
    crossServerFlow?: {
      enabled: boolean;
      sameTurnOnly: boolean;
      window: string;
    };
    shadowTool?: {
      enabled: boolean;
    };
    /**
     * @maxItems 256
     */
    classifier?: {
      /**
       * @minItems 1
       * @maxItems 64
       */
      servers?: [string, ...string[]];
      /**
       * @minItems 1
       * @maxItems 256
       */
      tools: [string, ...string[]];
      class: "Read" | "Write" | "Send" | "Compute" | "Unknown";
    }[];
  };
  llm: {
    /**
     * @maxItems 64
     */
    providers?: {
      host: string;
      dialect: "AnthropicMessages" | "OpenAIChat" | "OpenAIResponses" | "Gemini";
    }[];
    stripDeniedTools: boolean;
    requireDeclaredTools: boolean;
    hostedMcp: "Allow" | "Deny";
  };
  egress: {
    default: "Allow" | "Deny";
    /**
     * @maxItems 256
     */
    rules?: {
      name?: string;
      action: "Allow" | "Deny";
      /**
       * @maxItems 256
       */
      hosts?: string[];
      /**
       * @maxItems 256
       */
      cidrs?: string[];
      /**
       * @maxItems 64
       */
      ports?: number[];
    }[];
    /**
     * @maxItems 256
     */
    inspect?: string[];
    /**
     * @maxItems 256
     */
    tlsPassthrough?: string[];
  };
  denyAs: "JsonRpcError" | "ToolError";
  blockMessage: string;
  onStateUnavailable: "Local" | "Deny" | "Allow";
  maxStaleness: string;
}
