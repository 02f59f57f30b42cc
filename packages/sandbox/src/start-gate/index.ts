export { StartGate } from "./start-gate";
