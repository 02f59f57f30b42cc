// One cut rule for the runner and the IDE (packages/protocol utf8-boundary.ts).
export { utf8Boundary } from "@berth/protocol";
