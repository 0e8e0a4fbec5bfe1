// The sandbox's fault mode: a rule makes the next matching request(s) fail the way real servers
// and networks fail (slow, cut off, wrong content, redirected, echoing secrets back), in front of
// every module. Tests of the SDK use it; so can users' own tests (`sandbox.faults.add(...)`, or
// `POST /__sandbox/faults` with the same rule as JSON when the sandbox runs as a command).
import type { IncomingMessage, ServerResponse } from "node:http";
import { Timers } from "./module.js";

export type Fault =
  /** Waits, then does what the request asks and answers: the request is read first, and done even if the client has gone meanwhile (as a slow service does). */
  | { kind: "delay"; ms: number }
  /** An answer with this status (and body, content type, headers), e.g. 500, 503, 429 with Retry-After. */
  | { kind: "status"; status: number; body?: string; contentType?: string; headers?: Record<string, string> }
  /** An HTML page (a proxy's error page, a login page) with this status. */
  | { kind: "html"; status: number }
  /** JSON cut off in the middle, with a Content-Length that matches what is sent. */
  | { kind: "truncated-json" }
  /** A JSON answer whose bytes are not valid UTF-8. */
  | { kind: "invalid-utf8" }
  /** The connection is reset before any header. */
  | { kind: "reset-before-headers" }
  /** Headers and part of the body, then the connection is reset. */
  | { kind: "reset-mid-body" }
  /** No answer at all (until the sandbox closes). */
  | { kind: "hang" }
  /** A valid answer (or `body`, of `contentType`), one byte every `intervalMs`. */
  | { kind: "slow-body"; intervalMs: number; body?: string; contentType?: string }
  /** 200 with an empty body, or 204. */
  | { kind: "empty"; status: 200 | 204 }
  /** A JSON answer of `bytes` bytes (a long array of rows). */
  | { kind: "huge"; bytes: number }
  /** A redirect to the same path on this host, or on another host name of the same server (`localhost` for `127.0.0.1`). */
  | { kind: "redirect"; to: "same-host" | "other-host"; status?: 301 | 302 | 303 | 307 | 308 }
  /** The request's body and headers echoed into an error: a JSON `message` (with `code`, like an envelope), plain text or an HTML page. */
  | { kind: "echo"; status: number; as: "json" | "text" | "html"; code?: number }
  /**
   * With `after` only: the service's own answer, with one response header dropped (`"none"`) or set to
   * the value the request carried in the same header (`"presented"`): a proxy that strips a header, or
   * an answer that gives a chain's link back instead of the next one.
   */
  | { kind: "rewrite-header"; name: string; value: "none" | "presented" };

export interface FaultRule {
  /** A path prefix (`/portal/v2/user/me`) or a pattern; every path when absent. */
  path?: string | RegExp;
  /** How many matching requests it applies to. Default 1; `Infinity` for all. */
  times?: number;
  fault: Fault;
  /**
   * The request reaches its module first, which does what it asks (registers the receipt, creates
   * the payment), and only then is the fault played instead of the module's answer: the answer lies
   * or is lost after the service applied the request. Default false: the fault replaces the request.
   */
  after?: boolean;
}

/** What reached the server, for tests that count attempts (a money operation must arrive at most once). */
export interface SeenRequest {
  method: string;
  path: string;
  host: string;
  authorization: string | undefined;
  fault: Fault["kind"] | undefined;
}

/** How many requests `seen` keeps (trimmed in batches of 1,000). */
export const SEEN_LIMIT = 10_000;

export class SandboxFaults {
  readonly #rules: { rule: FaultRule; left: number }[] = [];
  /** Waits the faults are playing; dropped when the sandbox closes. */
  readonly timers = new Timers();
  /**
   * The requests the server received, in order, with the fault applied to each; the latest
   * `SEEN_LIMIT` only, so a long-running sandbox does not grow. Cleared by `clear()`.
   */
  readonly seen: SeenRequest[] = [];

  add(rule: FaultRule): void {
    // Without `after` there is no answer of the service's to rewrite: the rule would be used up doing nothing.
    if (rule.fault.kind === "rewrite-header" && !rule.after) throw new Error('a "rewrite-header" fault needs { after: true }');
    this.#rules.push({ rule, left: rule.times ?? 1 });
  }

  /** Drops every rule and the record of requests seen. */
  clear(): void {
    this.#rules.length = 0;
    this.seen.length = 0;
  }

  /** How many requests reached `path` (a prefix). */
  count(path: string): number {
    return this.seen.filter((s) => s.path.startsWith(path)).length;
  }

  /** Records the request; returns the first rule that matches it and still has uses. */
  take(request: Omit<SeenRequest, "fault">): FaultRule | undefined {
    const { path } = request;
    const entry = this.#rules.find(
      ({ rule, left }) => left > 0 && (rule.path === undefined || (typeof rule.path === "string" ? path.startsWith(rule.path) : rule.path.test(path))),
    );
    if (entry) entry.left--;
    this.seen.push({ ...request, fault: entry?.rule.fault.kind });
    if (this.seen.length > SEEN_LIMIT + 1_000) this.seen.splice(0, this.seen.length - SEEN_LIMIT);
    return entry?.rule;
  }

  /** Stops every pending wait (the sandbox is closing). */
  close(): void {
    this.timers.clear();
  }
}

/**
 * Plays a fault. Returns true when it answered (or will never answer); false when the request
 * should go on to its module (after a delay).
 */
export async function playFault(fault: Fault, req: IncomingMessage, res: ServerResponse, body: string, timers: Timers): Promise<boolean> {
  const json = (status: number, text: string | Buffer, length = Buffer.byteLength(text)) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": length });
    res.end(text);
  };
  switch (fault.kind) {
    case "delay":
      await timers.sleep(fault.ms);
      return false;
    case "status":
      res.writeHead(fault.status, { "content-type": fault.contentType ?? "application/json", ...fault.headers });
      res.end(fault.body ?? "");
      return true;
    case "html":
      res.writeHead(fault.status, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><html><head><title>Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>The upstream server did not answer.</p></body></html>");
      return true;
    case "truncated-json":
      json(200, '{"code":0,"message":"OK","data":[{"idPayment":1,"amount":25');
      return true;
    case "invalid-utf8": {
      const bytes = Buffer.concat([Buffer.from('{"code":0,"message":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('","result":{}}')]);
      json(200, bytes, bytes.byteLength);
      return true;
    }
    case "reset-before-headers":
      req.socket.destroy();
      return true;
    case "reset-mid-body":
      res.writeHead(200, { "content-type": "application/json", "content-length": 10_000 });
      res.write('{"code":0,"data":[');
      await timers.sleep(20);
      req.socket.destroy();
      return true;
    case "hang":
      return true;
    case "slow-body": {
      const text = fault.body ?? '{"code":0,"message":"OK","result":{}}';
      res.writeHead(200, { "content-type": fault.contentType ?? "application/json", "content-length": Buffer.byteLength(text) });
      for (const ch of text) {
        if (res.destroyed) break;
        res.write(ch);
        await timers.sleep(fault.intervalMs);
      }
      res.end();
      return true;
    }
    case "empty":
      res.writeHead(fault.status, fault.status === 200 ? { "content-type": "application/json", "content-length": 0 } : {});
      res.end();
      return true;
    case "huge": {
      const row = '{"idPayment":1,"amount":2500,"account":"7011234567"},';
      const head = '{"code":0,"message":"OK","data":[';
      const count = Math.max(0, Math.floor((fault.bytes - head.length - 2) / row.length));
      res.writeHead(200, { "content-type": "application/json" });
      // Written in chunks, so the sandbox never holds the whole answer either.
      const chunk = row.repeat(1000);
      let left = count;
      res.write(head);
      while (left > 0 && !res.destroyed) {
        const n = Math.min(left, 1000);
        const ok = res.write(n === 1000 ? chunk : row.repeat(n));
        left -= n;
        if (!ok) await drainedOrClosed(res);
      }
      res.end('{"idPayment":2}]}');
      return true;
    }
    case "redirect": {
      const host = fault.to === "same-host" ? req.headers.host : (req.headers.host ?? "").replace("127.0.0.1", "localhost");
      res.writeHead(fault.status ?? 307, { location: `http://${host}${req.url}` });
      res.end();
      return true;
    }
    case "rewrite-header":
      return false; // the server rewrites the service's answer (server.ts); without `after` there is none to rewrite
    case "echo": {
      const received = `received ${req.method} ${req.url} with headers ${JSON.stringify(req.headers)} and body ${body}`;
      if (fault.as === "json") json(fault.status, JSON.stringify({ code: fault.code ?? 1, message: received, Code: fault.code ?? 1, error: received }));
      else {
        const text = fault.as === "html" ? `<html><body><h1>Error</h1><pre>${received}</pre></body></html>` : received;
        res.writeHead(fault.status, { "content-type": fault.as === "html" ? "text/html" : "text/plain" });
        res.end(text);
      }
      return true;
    }
  }
}

/** A rule sent as JSON to `POST /__sandbox/faults`: `path` is a prefix, or `{ "pattern": "…" }` for a regular expression. */
export function ruleFromJson(value: unknown): FaultRule {
  const v = value as { path?: string | { pattern: string }; times?: number | null; fault?: Fault; after?: boolean } | null;
  if (!v?.fault || typeof v.fault.kind !== "string") throw new Error('a fault rule needs { "fault": { "kind": … } }');
  const path = typeof v.path === "object" && v.path !== null ? new RegExp(v.path.pattern) : v.path;
  return { path, times: v.times === null ? Number.POSITIVE_INFINITY : v.times, fault: v.fault, after: v.after === true };
}

/** Waits until a response can take more, or is gone; removes both listeners either way (one pair per wait would pile up). */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done).off("close", done);
      resolve();
    };
    res.on("drain", done).on("close", done);
  });
}
