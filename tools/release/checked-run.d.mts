export interface CheckedRunContext {
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  opened(close: () => unknown): void;
}
export declare function checkedRun(title: string, body: (context: CheckedRunContext) => Promise<void>): Promise<never>;
