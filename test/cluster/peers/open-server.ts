/**
 * A destination no policy declares: plain HTTP on 8080 and a UDP echo on 5353. If the agent's probe
 * gets an answer from it, egress escaped.
 */
import { createSocket } from "node:dgram";
import { createServer } from "node:http";

createServer((_request, response) => response.end("escaped\n")).listen(8080);
const udp = createSocket("udp4");
udp.on("message", (message, peer) => udp.send(`echo ${message.toString()}`, peer.port, peer.address));
udp.bind(5353);
process.stderr.write("open server on tcp 8080, udp 5353\n");
