// The callback handlers mounted the way merchants mount them: Express (with and without its JSON
// body parser), Fastify and Hono on Node. The sandbox delivers real callbacks to each, twice; each
// framework processes the event once and acknowledges both deliveries.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { type CallbackEvent, createEcommerceClient } from "@paysys/ecommerce";
import { type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { merchant } from "./credentials.js";

let sb: Sandbox;
const closers: (() => Promise<unknown> | unknown)[] = [];
beforeAll(async () => {
  sb = await startSandbox({ ecommerce: { callbackRetryMs: 25 } });
});
afterAll(async () => {
  for (const close of closers) await close();
  await sb.close();
});

const shop = () => createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, callbacks: { allowedAddresses: ["127.0.0.1"] } });

/** Pays with a test card, calling back to `callbackUrl`; waits for the first acknowledgement, then has the sandbox deliver again. */
async function payAndDeliverTwice(client: ReturnType<typeof shop>, callbackUrl: string, processed: CallbackEvent[]) {
  const { id } = await client.payments.create({ amount: 12_345, callbackUrl, customerData: { cardData: { pan: TestCards.success, month: 1, year: 2032, cvv: "321" } } });
  await vi.waitFor(() => expect(sb.ecommerce.transaction(id)?.deliveries.some((d) => d.accepted)).toBe(true));
  expect(await sb.ecommerce.redeliver(id)).toBe(true);
  expect(processed.map((e) => [e.id, e.status, e.amount])).toEqual([[id, 1, 12_345]]);
  expect(sb.ecommerce.transaction(id)?.deliveries.map((d) => d.accepted)).toEqual([true, true]);
}

describe("callback handlers in frameworks", () => {
  for (const parser of [false, true]) {
    it(`Express ${parser ? "after express.json()" : "reading the raw body"}: app.post(path, nodeHandler)`, async () => {
      const client = shop();
      const processed: CallbackEvent[] = [];
      const app = express();
      if (parser) app.use(express.json());
      app.post(
        "/callbacks",
        client.callbacks.nodeHandler((e) => processed.push(e)),
      );
      const server = app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      closers.push(() => server.close());
      await payAndDeliverTwice(client, `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`, processed);
    });
  }

  it("Fastify: handle() with the parsed body and request.ip", async () => {
    const client = shop();
    const processed: CallbackEvent[] = [];
    const app = Fastify();
    app.post("/callbacks", async (request, reply) => {
      const answer = await client.callbacks.handle(JSON.stringify(request.body), { remoteAddress: request.ip }, (e) => processed.push(e));
      return reply.code(answer.status).send(answer.body);
    });
    const address = await app.listen({ port: 0, host: "127.0.0.1" });
    closers.push(() => app.close());
    await payAndDeliverTwice(client, `${address}/callbacks`, processed);
  });

  it("Hono on Node: fetchHandler with the socket's address", async () => {
    const client = shop();
    const processed: CallbackEvent[] = [];
    const handler = client.callbacks.fetchHandler((e) => processed.push(e));
    const app = new Hono<{ Bindings: { incoming: { socket: { remoteAddress?: string } } } }>();
    app.post("/callbacks", (c) => handler(c.req.raw, { remoteAddress: c.env.incoming.socket.remoteAddress }));
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    closers.push(() => server.close());
    await payAndDeliverTwice(client, `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`, processed);
  });
});
