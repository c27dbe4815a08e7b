"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.runToEnd = exports.ROOT = void 0;
exports.freePort = freePort;
exports.runBuilt = runBuilt;
exports.runIn = runIn;
exports.toEnd = toEnd;
const node_child_process_1 = require("node:child_process");
const node_net_1 = require("node:net");
const node_path_1 = require("node:path");
exports.ROOT = (0, node_path_1.join)(__dirname, '..', '..');
function freePort() {
    return new Promise((resolve, reject) => {
        const server = (0, node_net_1.createServer)();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address();
            server.close(() => resolve(port));
        });
    });
}
function runBuilt(script, args, env, root = exports.ROOT) {
    return runIn(root, process.execPath, [(0, node_path_1.join)(root, 'dist', 'src', `${script}.js`), ...args], env, script);
}
function runIn(cwd, command, args, env, name = command) {
    const script = name;
    const child = (0, node_child_process_1.spawn)(command, args, {
        cwd,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => ((output += chunk), (stdout += chunk)));
    child.stderr.on('data', (chunk) => ((output += chunk), (stderr += chunk)));
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    return {
        child,
        output: () => output,
        stdout: () => stdout,
        stderr: () => stderr,
        waitFor(pattern, timeoutMs = 60_000) {
            return new Promise((resolve, reject) => {
                const started = Date.now();
                const poll = setInterval(() => {
                    const match = output.match(pattern);
                    if (match) {
                        clearInterval(poll);
                        resolve(match);
                    }
                    else if (child.exitCode !== null || Date.now() - started > timeoutMs) {
                        clearInterval(poll);
                        reject(new Error(`${script} did not print ${pattern}; it printed:\n${output}`));
                    }
                }, 50);
            });
        },
        async stop(signal = 'SIGTERM') {
            if (child.exitCode === null)
                child.kill(signal);
            return exited;
        },
    };
}
async function toEnd(running) {
    const code = running.child.exitCode ?? (await new Promise((resolve) => running.child.once('exit', resolve)));
    return { code, output: running.output(), stdout: running.stdout(), stderr: running.stderr() };
}
const runToEnd = (script, args, env) => toEnd(runBuilt(script, args, env));
exports.runToEnd = runToEnd;
//# sourceMappingURL=processes.js.map