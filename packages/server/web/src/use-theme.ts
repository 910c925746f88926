/**
 * The colour theme: the system's (`prefers-color-scheme`, followed live) until the user picks one with the header's
 * toggle, which is remembered in localStorage (`attractor.theme`). The theme is `data-theme` on `<html>`; the style
 * sheet's colours follow it.
 */
import { useEffect, useState } from 'preact/hooks';

/** A colour theme. */
export type Theme = 'light' | 'dark';

const THEME_KEY = 'attractor.theme';

const systemDark = matchMedia('(prefers-color-scheme: dark)');

/** The theme the user picked, if any (a stored value other than `light` or `dark` counts as none). */
function storedTheme(): Theme | undefined {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(THEME_KEY);
  } catch {
    // Storage refused (a privacy setting): the system's theme.
  }
  return stored === 'light' || stored === 'dark' ? stored : undefined;
}

/** The theme to show now: the picked one, else the system's. */
function currentTheme(): Theme {
  return storedTheme() ?? (systemDark.matches ? 'dark' : 'light');
}

/** Sets `data-theme` (and `color-scheme`, for form controls and scroll bars) on `<html>`. */
function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
}

/** Applies the current theme before the first render, so the page never flashes the other one. */
export function initTheme(): void {
  applyTheme(currentTheme());
}

/** The theme shown now and a function that picks (and remembers) the other one. */
export function useTheme(): { readonly theme: Theme; readonly toggle: () => void } {
  const [theme, setTheme] = useState<Theme>(currentTheme);
  useEffect(() => {
    const follow = () => {
      const next = currentTheme();
      applyTheme(next);
      setTheme(next);
    };
    systemDark.addEventListener('change', follow);
    // Another tab picked a theme.
    addEventListener('storage', follow);
    return () => {
      systemDark.removeEventListener('change', follow);
      removeEventListener('storage', follow);
    };
  }, []);
  const toggle = () => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    try {
      localStorage.setItem(THEME_KEY, next);
    } catch {
      // Not remembered; still switched for this page.
    }
    applyTheme(next);
    setTheme(next);
  };
  return { theme, toggle };
}
