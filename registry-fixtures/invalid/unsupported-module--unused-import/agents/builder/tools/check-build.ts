import { tool } from "@opencorvus-ai/plugin";
import { createHash } from "node:crypto";
import { digestLabel } from "../lib/digest";
import { DEFAULT_BULLET } from "../../../lib/types";

export default tool({
  description: "Record a build artifact's digest",
  args: {},
  async execute(args: { name: string; bytes: string }) {
    const sha = createHash("sha256").update(args.bytes).digest("hex");
    return `${DEFAULT_BULLET} ${digestLabel(args.name, sha)}`;
  },
});
