import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestIo } from '../../test/helpers/test-io.js';
import { createColors } from '../colors.js';
import type { RunDisplay } from '../display/run-display.js';
import { installInterruptHandlers } from './install-interrupt-handlers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('installInterruptHandlers (Ctrl-C)', () => {
  it('aborts the run on the first Ctrl-C and exits at once with 130 on the second', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const notices: string[] = [];
    const display: RunDisplay = {
      onEvent() {},
      pause() {},
      resume() {},
      notice: (text) => notices.push(text),
      finish() {},
    };
    const io = createTestIo({ cwd: '/tmp' });
    const controller = new AbortController();
    const release = installInterruptHandlers({
      controller,
      display,
      io,
      resumeCommand: () => 'attractor resume runs/x',
      colors: createColors(false),
    });
    try {
      process.emit('SIGINT', 'SIGINT');
      expect(controller.signal.aborted).toBe(true);
      expect((controller.signal.reason as Error).message).toBe('interrupted by Ctrl-C');
      expect(notices).toEqual(['Ctrl-C: stopping the running stage… (press Ctrl-C again to exit at once)']);
      expect(exit).not.toHaveBeenCalled();
      process.emit('SIGINT', 'SIGINT');
      expect(exit).toHaveBeenCalledWith(130);
      expect(io.errors()).toBe('\nExited at once. Resume with: attractor resume runs/x\n');
    } finally {
      release();
    }
    expect(process.listenerCount('SIGINT')).toBe(0);
  });
});
