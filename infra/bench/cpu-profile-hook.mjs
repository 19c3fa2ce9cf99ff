// Loaded into each instance by infra/bench/profile.ts (NODE_OPTIONS=--import …): node refuses --cpu-prof in
// NODE_OPTIONS, and a whole-life profile would be mostly start-up. SIGUSR2 starts V8's sampling profiler, the
// next SIGUSR2 stops it and writes <CPU_PROFILE_DIR>/<INSTANCE_ID>.cpuprofile, so only the measured window counts.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const dir = process.env.CPU_PROFILE_DIR;
const session = new Session();
session.connect();
let running = false;
process.on("SIGUSR2", () => {
  if (!running) {
    running = true;
    session.post("Profiler.enable", () =>
      session.post("Profiler.setSamplingInterval", { interval: 200 }, () => session.post("Profiler.start")),
    );
    return;
  }
  running = false;
  session.post("Profiler.stop", (error, result) => {
    if (error) return;
    writeFileSync(`${dir}/${process.env.INSTANCE_ID ?? process.pid}.cpuprofile`, JSON.stringify(result.profile));
  });
});
