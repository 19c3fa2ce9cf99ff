/**
 * The environment of one more ROLE=web instance beside a testkit deployment's (bench:pair's other checkout,
 * bench:instructions' counted services): the deployment's Redis, database and fakes, a name of its own, and of this
 * process's environment only PATH and HOME, as testkit gives its own instances. The caller adds its PORT.
 */
export function webInstanceEnv(deploymentEnv: Record<string, string>, name: string) {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...deploymentEnv,
    ROLE: "web",
    INSTANCE_ID: name,
    ANTHROPIC_API_KEY: `sk-ant-test-${name}`,
  };
}
