import { q } from "../lib/extra.js";
export default 1;
