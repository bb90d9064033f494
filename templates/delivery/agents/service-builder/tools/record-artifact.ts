import { tool } from "@opencorvus-ai/plugin";
import { createHash } from "node:crypto";
import { label } from "../lib/label";

export default tool({
  description: "Record an artifact digest",
  args: {},
  async execute(args: { name: string; bytes: string }) {
    return label(args.name, createHash("sha256").update(args.bytes).digest("hex"));
  },
});
