/**
 * An event stream read independently of src/codecs/sse.ts (blank-line separated blocks, `event:` and
 * `data:` fields), for asserting that the proxy re-serialised a stream canonically without loss.
 */
export interface ReadEvent {
  event: string | undefined;
  data: unknown;
}

export function readEvents(text: string): ReadEvent[] {
  const events: ReadEvent[] = [];
  for (const block of text.split(/\r\n\r\n|\n\n|\r\r/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line.startsWith("event:")) event = line.slice(6).trimStart();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length === 0) continue;
    const joined = data.join("\n");
    events.push({ event, data: joined === "[DONE]" ? joined : JSON.parse(joined) });
  }
  return events;
}

/** Each event is an optional `event:` line, one `data:` line and a blank line; nothing else. */
export const canonicalStream = /^(?:(?:event: [^\r\n]*(\r?\n))?data: [^\r\n]*\r?\n\r?\n)*$/;
