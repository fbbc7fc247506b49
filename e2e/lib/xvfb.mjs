// A private X server for the window: Xvfb picks a free display number itself
// (-displayfd) and reports it back on a pipe.
import { start, stop } from './proc.mjs'

export async function startXvfb({ width = 1280, height = 800, timeoutMs = 10000 } = {}) {
  const child = start('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp', '-nocursor'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const display = await new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`Xvfb did not report a display within ${timeoutMs} ms\n${stderr}`)), timeoutMs)
    child.once('error', (err) => {
      clearTimeout(timer)
      reject(new Error(`cannot start Xvfb (${err.message}); install the xvfb package`))
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`Xvfb exited with ${code}\n${stderr}`))
    })
    child.stdio[3].on('data', (d) => {
      out += d
      if (out.includes('\n')) {
        clearTimeout(timer)
        resolve(`:${out.trim()}`)
      }
    })
  })
  return { display, stop: () => stop(child) }
}
