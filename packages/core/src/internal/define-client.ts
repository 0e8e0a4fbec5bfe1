// `defineClient`: the wiring every client shares. A client package brings what its spec cannot say
// (how it signs in, its codecs and checks, whose journal it keeps); this makes the transport, the
// invoker and the typed methods from it. The spec's names type the handlers: a codec, a check or a
// security scheme the spec names and the client does not bring is a compile error (and, for plain
// JavaScript, the invoker's ConfigurationError at construction).
import type { ClientFunctions, ClientSettings, JournalFunctions, JournalSettings } from "../call.js";
import { ConfigurationError } from "../errors.js";
import { CARD_IN_HEADER, holdsCardNumber } from "./card-number.js";
import type { Codec } from "./codecs.js";
import { type Check, createInvoker, type Invoke, type Invoker } from "./invoker.js";
import type { ChainDefinition, OperationSpec } from "./operation.js";
import { checkServiceOptions, journalOptions, sharedTransportOptions } from "./options.js";
import type { SecretSet } from "./redact.js";
import type { SecurityScheme } from "./steps.js";
import { clientTelemetry } from "./telemetry.js";
import { Transport } from "./transport.js";

/** The names a spec gives to what its client brings (generated as `SpecNames` beside the operation table). */
export interface SpecNames {
  codec: string;
  check: string;
  scheme: string;
}

/** An interface as the code generator describes it (`spec` in a package's `generated/client.ts`). */
export interface GeneratedSpec<N extends SpecNames, Methods, Paths extends {} = Record<string, never>> {
  readonly operations: Readonly<Record<string, OperationSpec>>;
  readonly sensitiveKeys: readonly string[];
  readonly chain?: ChainDefinition;
  /** The typed methods over an invoker. */
  readonly build: (invoke: Invoke) => Methods;
  /** For the type checker only: the names the client must bring handlers for, and the paths its raw client takes. */
  readonly names?: N;
  readonly paths?: Paths;
}

/** The options every client takes and hands on as they are (checked by the package's settings validator first). */
export type SharedClientOptions = ClientSettings &
  ClientFunctions &
  Partial<JournalSettings & JournalFunctions> & { validateRequests?: boolean; timeZone?: string; paths?: Readonly<Record<string, string>> };

/** What a client brings: one handler for every name its spec uses, and whose journal it keeps. */
export interface ClientParts<N extends SpecNames> {
  options: SharedClientOptions;
  baseUrl: string;
  /** Every secret the client holds, so no error or log line shows one whatever the server echoes. */
  secrets: SecretSet;
  schemes: { readonly [K in N["scheme"]]: SecurityScheme };
  codecs: { readonly [K in N["codec"]]: Codec };
  checks: { readonly [K in N["check"]]: Check };
  /** The interface's name (`fiscal`): in the journal's keys and the telemetry's span names. */
  interface: string;
  /**
   * Whose keys and registers the journal holds (never a secret), and the account answers name as
   * `$account` (`x-answer-names`). Needed when the spec journals an operation or has a chain.
   */
  journal?: { account: string };
  /** Runs before every call; throws when the client may not be used any more. */
  guard?: () => void;
}

export interface ClientCore<Methods, Paths extends {}> {
  methods: Methods;
  invoker: Invoker;
  transport: Transport<Paths>;
}

export function defineClient<N extends SpecNames, Methods, Paths extends {}>(spec: GeneratedSpec<N, Methods, Paths>, parts: ClientParts<N>): ClientCore<Methods, Paths> {
  const { options, baseUrl } = parts;
  checkServiceOptions(baseUrl, options.timeZone, options.allowInsecureHttp === true);
  // Here, with the runtime, rather than with the other option checks: the card-number reader is no page's first load.
  const carded = Object.entries(options.headers ?? {}).find(([, value]) => holdsCardNumber(String(value)));
  if (carded) throw new ConfigurationError(`${parts.interface}: invalid options: /headers/${carded[0]} ${CARD_IN_HEADER}`);
  const transport = new Transport<Paths>({
    ...sharedTransportOptions(options),
    baseUrl,
    schemes: parts.schemes as Readonly<Record<string, SecurityScheme>>,
    sensitiveKeys: spec.sensitiveKeys,
    secrets: parts.secrets,
  });
  const invoker = createInvoker({
    transport,
    operations: spec.operations,
    sensitiveKeys: spec.sensitiveKeys,
    codecs: parts.codecs as Readonly<Record<string, Codec>>,
    checks: parts.checks as Readonly<Record<string, Check>>,
    timeZone: options.timeZone,
    validateRequests: options.validateRequests,
    chain: spec.chain,
    journal: parts.journal && journalOptions(options, { ...parts.journal, interface: parts.interface, baseUrl }),
    paths: options.paths,
    guard: parts.guard,
    telemetry: clientTelemetry(options.telemetry, { interface: parts.interface, baseUrl }),
    account: parts.journal?.account,
  });
  return { methods: spec.build(invoker.invoke), invoker, transport };
}
