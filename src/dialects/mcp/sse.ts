import type { LineEnding } from "../../codecs/sse.ts";

/**
 * An SSE event with its data replaced and every other line (`id:`, `event:`, `retry:`, comments)
 * kept in place, so resumption ids and event names survive a rewrite.
 */
export function replaceEventData(raw: Buffer, data: string, eol: LineEnding): Buffer {
  const lines = raw.toString("utf8").split(/\r\n|\r|\n/);
  const out: string[] = [];
  let dataWritten = false;
  for (const line of lines) {
    if (line === "") continue;
    if (line === "data" || line.startsWith("data:")) {
      if (!dataWritten) for (const part of data.split(/\r\n|\r|\n/)) out.push(`data: ${part}`);
      dataWritten = true;
      continue;
    }
    out.push(line);
  }
  if (!dataWritten) for (const part of data.split(/\r\n|\r|\n/)) out.push(`data: ${part}`);
  return Buffer.from(out.join(eol) + eol + eol);
}
