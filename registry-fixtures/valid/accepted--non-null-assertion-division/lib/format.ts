import type { Options } from "./types";

export function formatList(items: string[], options?: Options): string {
  const bullet = options?.bullet ?? "-";
  return items.map((item) => `${bullet} ${item}`).join("\n");
}
export const average = (totals: Map<string, number>, key: string, runs: number) => totals.get(key)! / runs;
export const label = (n: number) => `${n} ms/run`;
