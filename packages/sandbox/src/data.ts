// The sandbox's data set: agents, terminals and payments, the same on every run. Payments are
// not stored: each day's payments are computed from the day and a seed, so any period, however
// long, costs no memory until it is asked for.

/** mulberry32: a tiny seeded PRNG, enough for reproducible test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Agent {
  idAgent: number;
  idParent: number | null;
  name: string;
  namePrint: string;
  bin: string;
  rnn: string;
  address: string;
  login: string;
  cellPhone: string;
  email: string;
  phone: string;
  nowBalance: number;
  credit: number;
  blocked: number;
  contract: string;
  ownerType: number;
  firstPaymentDate: string;
  lastPaymentDate: string;
}

export interface Terminal {
  idTerminal: number;
  idAgent: number;
  idTypeTerminal: number;
  name: string;
  rnm: string;
  address: string;
  active: number;
}

export interface Payment {
  idPayment: number;
  date: string;
  idAgent: number;
  idTerminal: number;
  idService: number;
  account: string;
  sn: string;
  amount: number;
  commission: number;
}

export const services = [
  { idService: 301, name: "Mobile top-up" },
  { idService: 302, name: "Electricity" },
  { idService: 303, name: "Internet" },
  { idService: 304, name: "Water" },
  { idService: 305, name: "Bank loan repayment" },
];

const streets = ["Abay", "Dostyk", "Satpayev", "Tole bi", "Zhibek Zholy", "Seifullin"];

export interface DataSet {
  root: number;
  agents: Agent[];
  terminals: Terminal[];
  /** Agent and all its subagents, per `sub` scope (0..4). */
  scope(idAgent: number, sub: number): Set<number>;
  /** The payments of one day (yyyyMMdd), in time order. */
  paymentsOn(day: string): Payment[];
}

export function createDataSet(options: { seed?: number; agents?: number; terminals?: number; paymentsPerDay?: number } = {}): DataSet {
  const seed = options.seed ?? 24;
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 10)).join("");
  const root = 1001;
  const agents: Agent[] = [];
  const agentCount = options.agents ?? 40;
  for (let i = 0; i < agentCount; i++) {
    const idAgent = root + i;
    // A tree: the root, 7 first-level subagents, the rest below them.
    const idParent = i === 0 ? null : i <= 7 ? root : root + 1 + ((i - 8) % 7);
    agents.push({
      idAgent,
      idParent,
      name: `Agent ${idAgent}`,
      namePrint: `AGENT-${idAgent}`,
      bin: digits(12),
      rnn: digits(12),
      address: `Almaty, ${pick(streets)} st. ${1 + Math.floor(rnd() * 200)}`,
      login: `agent${idAgent}`,
      cellPhone: `7777${digits(7)}`,
      email: `agent${idAgent}@example.com`,
      phone: `727${digits(7)}`,
      nowBalance: Math.round(rnd() * 5_000_000) / 100,
      credit: Math.round(rnd() * 100) * 1000,
      blocked: rnd() < 0.1 ? 1 : 0,
      contract: `C-${2020 + (i % 5)}-${String(idAgent).padStart(6, "0")}`,
      ownerType: 1 + (i % 2),
      firstPaymentDate: `20${20 + (i % 4)}0${1 + (i % 9)}15093000`,
      lastPaymentDate: "20240531235000",
    });
  }
  const terminals: Terminal[] = [];
  for (let i = 0; i < (options.terminals ?? 120); i++) {
    terminals.push({
      idTerminal: 5001 + i,
      idAgent: root + (i % agentCount),
      idTypeTerminal: 1 + (i % 3),
      name: `Terminal ${5001 + i}`,
      rnm: digits(12),
      address: `Almaty, ${pick(streets)} st. ${1 + Math.floor(rnd() * 200)}`,
      active: rnd() < 0.9 ? 1 : 0,
    });
  }
  const children = new Map<number, number[]>();
  for (const a of agents) if (a.idParent !== null) children.set(a.idParent, [...(children.get(a.idParent) ?? []), a.idAgent]);
  const below = (id: number): number[] => (children.get(id) ?? []).flatMap((c) => [c, ...below(c)]);

  const perDay = options.paymentsPerDay ?? 40;
  const dayCache = new Map<string, Payment[]>();
  return {
    root,
    agents,
    terminals,
    scope(idAgent, sub) {
      const next = children.get(idAgent) ?? [];
      const all = below(idAgent);
      const sets: Record<number, number[]> = { 0: [idAgent], 1: all, 2: [idAgent, ...all], 3: next, 4: [idAgent, ...next] };
      return new Set(sets[sub] ?? [idAgent]);
    },
    paymentsOn(day) {
      const cached = dayCache.get(day);
      if (cached) return cached;
      const r = prng(seed * 100_003 + Number(day));
      const out: Payment[] = [];
      for (let i = 0; i < perDay; i++) {
        const t = terminals[Math.floor(r() * terminals.length)]!;
        const secondOfDay = Math.floor(((i + r()) / perDay) * 86_400);
        const hh = String(Math.floor(secondOfDay / 3600)).padStart(2, "0");
        const mm = String(Math.floor((secondOfDay % 3600) / 60)).padStart(2, "0");
        const ss = String(secondOfDay % 60).padStart(2, "0");
        const amount = (100 + Math.floor(r() * 49_900)) * 1; // whole tenge
        out.push({
          idPayment: Number(day.slice(2)) * 10_000 + i,
          date: `${day}${hh}${mm}${ss}`,
          idAgent: t.idAgent,
          idTerminal: t.idTerminal,
          idService: services[Math.floor(r() * services.length)]!.idService,
          account: `70${String(Math.floor(r() * 1e8)).padStart(8, "0")}`,
          sn: `SN${day}${String(i).padStart(5, "0")}`,
          amount,
          commission: Math.round(amount * 0.01 * 100) / 100,
        });
      }
      if (dayCache.size > 400) dayCache.clear();
      dayCache.set(day, out);
      return out;
    },
  };
}
