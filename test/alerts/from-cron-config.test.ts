import { describe, expect, it } from "vitest";
import { channelConfigFromCron } from "../../src/alerts/from-cron-config.js";

describe("channels from the cron config", () => {
  it("maps secret references back to *_env / *_file keys and a plain url", () => {
    expect(
      channelConfigFromCron({
        name: "hook",
        type: "webhook",
        url: { kind: "literal", value: "https://example.com/hook" },
        secret: { kind: "file", path: "/run/secrets/hook" },
        format: "slack",
      }),
    ).toEqual({
      name: "hook",
      type: "webhook",
      format: "slack",
      url: "https://example.com/hook",
      secret_file: "/run/secrets/hook",
    });
    expect(
      channelConfigFromCron({
        name: "mail",
        type: "email",
        smtpUrl: { kind: "env", name: "SMTP_URL" },
        from: "a@example.com",
        to: ["b@example.com"],
      }),
    ).toEqual({
      name: "mail",
      type: "email",
      from: "a@example.com",
      to: ["b@example.com"],
      smtp_url_env: "SMTP_URL",
    });
  });

  it("makes an email channel without an SMTP url the embedded sink", () => {
    expect(
      channelConfigFromCron({
        name: "mail",
        type: "email",
        smtpUrl: undefined,
        from: "a@x",
        to: ["b@x"],
      }),
    ).toEqual({ name: "mail", type: "sink" });
  });
});
