import { tool } from "@opencorvus-ai/plugin";
export default tool({ description: "ping", args: {}, async execute() { return "pong"; } });
