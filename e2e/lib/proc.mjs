// Child processes started by the harness. Each runs in its own process group
// so that stopping it also stops what it spawned (WebKit helper processes);
// nothing else is ever signalled.
import { spawn } from 'node:child_process'

const running = new Set()

export function start(cmd, args, options = {}) {
  const child = spawn(cmd, args, { ...options, detached: true })
  running.add(child)
  child.once('exit', () => running.delete(child))
  return child
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {
    try {
      child.kill(signal)
    } catch {
      // already gone
    }
  }
}

export function exited(child) {
  return child.exitCode !== null || child.signalCode !== null
}

/** SIGTERM, then SIGKILL after graceMs. Resolves once the process has exited. */
export async function stop(child, graceMs = 3000) {
  if (!child || exited(child)) {
    running.delete(child)
    return
  }
  const gone = new Promise((resolve) => child.once('exit', resolve))
  signalGroup(child, 'SIGTERM')
  const timer = new Promise((resolve) => setTimeout(() => resolve('timeout'), graceMs))
  if ((await Promise.race([gone, timer])) === 'timeout') {
    signalGroup(child, 'SIGKILL')
    await gone
  }
  // Helpers that outlived the leader: the group is ours, clean it up.
  signalGroup(child, 'SIGKILL')
  running.delete(child)
}

/** Last resort on process exit: kill every group still running. */
export function killAllNow() {
  for (const child of running) signalGroup(child, 'SIGKILL')
  running.clear()
}

let hooked = false
export function installExitHooks() {
  if (hooked) return
  hooked = true
  process.on('exit', killAllNow)
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      killAllNow()
      process.exit(130)
    })
  }
}
