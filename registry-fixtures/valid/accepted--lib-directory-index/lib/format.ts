import type { Options } from "./types";

export function formatList(items: string[], options?: Options): string {
  const bullet = options?.bullet ?? "-";
  return items.map((item) => `${bullet} ${item}`).join("\n");
}
