import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    reporters: ["default", "./test/summary-reporter.ts"],
    globalSetup: ["test/k8s/global-setup.ts"],
  },
});
