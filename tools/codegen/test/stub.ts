// A scripted `fetch` for the runtime half of the fixture tests (unit tests of the generated table
// with the real transport and invoker; the clients' own tests talk HTTP to the sandbox).
export interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

export function stubFetch(answer: (seen: Seen, n: number) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const s: Seen = { method: init.method ?? "GET", url, headers: new Headers(init.headers), body: init.body ? String(init.body) : "" };
    seen.push(s);
    return answer(s, seen.length);
  };
  return { fetch, seen };
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
