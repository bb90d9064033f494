import { tool } from "@opencorvus-ai/plugin";
import { formatList } from "../lib/format";
import template from "../assets/summary.md";

export default tool({
  description: "Summarize a list of changes",
  args: {},
  async execute(args: { changes: string[] }) {
    return template.replace("{{changes}}", formatList(args.changes));
  },
});
