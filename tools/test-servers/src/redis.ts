// A real Redis for the tests: Debian's redis-server on a free port, in a folder of its own, with an
// append-only file fsync'd on every write, so that `halt` then `resume` is a restart that loses
// nothing (what the store's README asks of a production server).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { connect } from "node:net";
import { freePort, type RunningServer, temporaryFolder } from "./common.js";

const PACKAGE = "redis-server";

/** The server binary: Debian's redis-server, installed here when missing and we are root. */
function serverBinary(): string {
  const found = which("redis-server") ?? which("valkey-server");
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error(`redis-server is not installed: install the Debian package (apt-get install -y ${PACKAGE}) and run the tests again`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
  execFileSync("apt-get", ["install", "-y", "-qq", PACKAGE], { stdio: "ignore", env });
  const installed = which("redis-server");
  if (!installed) throw new Error(`apt-get install ${PACKAGE} did not provide redis-server`);
  return installed;
}

function which(name: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Whether something on `port` answers PING with PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let reply = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk;
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });
}

export async function startRedis(): Promise<RunningServer> {
  const binary = serverBinary();
  const port = await freePort();
  const folder = temporaryFolder("redis");
  // Loopback only; no RDB snapshots (the AOF is the one durable copy); every write fsync'd.
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", folder, "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no"];
  let child: ChildProcess | undefined;

  const launch = async () => {
    let output = "";
    const started = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    started.stdout!.on("data", (d) => (output += d));
    started.stderr!.on("data", (d) => (output += d));
    child = started;
    const deadline = Date.now() + 15_000;
    while (!(await answersPing(port))) {
      if (started.exitCode !== null) throw new Error(`redis-server exited (${started.exitCode}) before it answered PING:\n${output}`);
      if (Date.now() > deadline) {
        started.kill("SIGKILL");
        throw new Error(`redis-server did not answer PING on port ${port} within 15 s:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  /** Sends `signal` and waits until the process has exited. */
  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill(signal);
    await exited;
  };

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    // SIGTERM is redis-server's own clean shutdown: the AOF is flushed before it exits.
    halt: () => end("SIGTERM"),
    resume: launch,
    async stop() {
      await end("SIGKILL");
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
