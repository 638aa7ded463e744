// The executable's entry point: bin/toolwall.js runs it from the sources, the image from dist/.
import { main } from "./main.ts";

process.exitCode = await main(process.argv.slice(2));
