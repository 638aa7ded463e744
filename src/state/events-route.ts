import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { EventsQueryError, parseEventsQuery } from "./events-query.ts";
import type { StateStore } from "./types.ts";

export interface EventsRouteOptions {
  reader: Pick<StateStore, "readAudit">;
  /** Runs before every request; to refuse, it sends the reply (401/403) itself. */
  authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

/**
 * `GET /v1/events?namespace=&type=&server=&tool=&action=&since=&after=&limit=`: the newest audit
 * events first, as `{events: [{id, event}]}`. `after` (an event id) returns only later events, for
 * following. Register with `app.register(eventsRoute, options)`.
 */
export async function eventsRoute(app: FastifyInstance, options: EventsRouteOptions): Promise<void> {
  app.addHook("onRequest", options.authenticate);
  app.get("/v1/events", async (request, reply) => {
    let query: ReturnType<typeof parseEventsQuery>;
    try {
      query = parseEventsQuery(request.query as Record<string, unknown>);
    } catch (error) {
      if (error instanceof EventsQueryError) return reply.code(400).send({ error: error.message });
      throw error;
    }
    try {
      return { events: await options.reader.readAudit(query) };
    } catch (error) {
      request.log.warn({ err: error }, "audit stream unreadable");
      return reply.code(503).send({ error: `audit stream unavailable: ${(error as Error).message}` });
    }
  });
}

/** An `authenticate` hook accepting `Authorization: Bearer <token>` when `verify` says yes. */
export function bearerTokenAuth(
  verify: (token: string) => boolean | Promise<boolean>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) => {
    const token = bearerToken(request);
    if (!token) {
      await reply.code(401).header("www-authenticate", "Bearer").send({ error: "bearer token required" });
      return;
    }
    if (!(await verify(token))) await reply.code(403).send({ error: "token not allowed to read events" });
  };
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
}
