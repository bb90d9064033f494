import { tool } from "@opencorvus-ai/plugin";
import { formatList } from "../lib";
import template from "../assets/report/template.md";

export default tool({
  description: "Summarize the changes of a release",
  args: {},
  async execute(args: { changes: string[] }) {
    return template.replace("{{changes}}", formatList(args.changes));
  },
});
