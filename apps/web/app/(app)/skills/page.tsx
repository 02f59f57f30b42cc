"use client";
import { CodeEditor } from "@/components/editor/code-editor";
export default function Page() {
  return <div style={{ height: 400 }}><CodeEditor path="x.py" value="print(1)" language="python" /></div>;
}
