import { describe, expect, it } from "vitest";
import { DEFAULT_SMTP_TIMEOUTS, smtpPoolOptions } from "../../src/monitor/channels/smtp-url.js";

const parse = (url: string) => smtpPoolOptions(url, 'channel "mail": smtp_url');

describe("smtpPoolOptions (nodemailer parses the url)", () => {
  it("keeps the tls.* options written in the url, which the old parser dropped", () => {
    const o = parse(
      "smtps://ops:pw@mail.example.com/?tls.rejectUnauthorized=false&tls.servername=mx.example.com",
    );
    expect(o.tls).toEqual({ rejectUnauthorized: false, servername: "mx.example.com" });
    expect(o).toMatchObject({ host: "mail.example.com", port: 465, secure: true, pool: true });
  });

  it("decodes credentials, strips IPv6 brackets and picks the port by scheme", () => {
    expect(parse("smtp://u%40x:p%3Aw@[::1]:2525")).toMatchObject({
      host: "::1",
      port: 2525,
      secure: false,
      auth: { user: "u@x", pass: "p:w" },
    });
    expect(parse("smtp://mail.example.com").port).toBe(587);
    expect(parse("smtp://mail.example.com").auth).toBeUndefined();
  });

  it("reads requireTLS in any spelling (and the starttls alias), off by default", () => {
    expect(parse("smtp://h").requireTLS).toBe(false);
    expect(parse("smtp://h?requireTLS=true").requireTLS).toBe(true);
    expect(parse("smtp://h?requireTLS=1").requireTLS).toBe(true);
    expect(parse("smtp://h?starttls=required").requireTLS).toBe(true);
    expect(parse("smtp://h?requireTLS=no").requireTLS).toBe(false);
    expect(parse("smtp://h?starttls=yes")).not.toHaveProperty("starttls");
  });

  it("applies our timeouts and pool sizes unless the url sets its own", () => {
    expect(parse("smtp://h")).toMatchObject({ ...DEFAULT_SMTP_TIMEOUTS, maxConnections: 2 });
    expect(parse("smtp://h?socketTimeout=5000&maxConnections=5")).toMatchObject({
      socketTimeout: 5000,
      maxConnections: 5,
    });
  });

  it("refuses other schemes and hostless urls without echoing the url", () => {
    const secret = "s3cret-pass";
    for (const url of [`http://u:${secret}@h`, `smtp://u:${secret}@`, "not a url"]) {
      let message = "";
      try {
        parse(url);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^channel "mail": smtp_url: /);
      expect(message).not.toContain(secret);
    }
  });
});
