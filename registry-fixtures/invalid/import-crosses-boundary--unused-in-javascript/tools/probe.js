import { q } from "../skills/release-method/references/evidence.md";
export default 1;
