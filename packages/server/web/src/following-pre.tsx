/**
 * A `<pre>` of text that grows while a stage runs (tool output, a model's streamed text): it stays scrolled to the
 * newest line unless the user scrolled up; then it stays where the user put it, and follows again once the user
 * scrolls back to the bottom.
 */
import { useLayoutEffect, useRef } from 'preact/hooks';

/** Within this many pixels of the bottom counts as at the bottom (fractional scroll positions). */
const AT_BOTTOM_PX = 2;

/** Props of {@link FollowingPre}. */
export interface FollowingPreProps {
  readonly text: string;
  readonly class: string;
  /** `aria-live` of the element, when screen readers should hear what arrives. Default: none. */
  readonly ariaLive?: 'polite' | 'off' | undefined;
}

/** The following `<pre>`. */
export function FollowingPre(props: FollowingPreProps) {
  const element = useRef<HTMLPreElement>(null);
  const following = useRef(true);
  // Before paint, so the new text never shows scrolled away first.
  useLayoutEffect(() => {
    const pre = element.current;
    if (pre !== null && following.current) pre.scrollTop = pre.scrollHeight;
  }, [props.text]);
  return (
    <pre
      ref={element}
      class={props.class}
      aria-live={props.ariaLive}
      // Our own scroll to the bottom lands here too, and keeps following.
      onScroll={(event) => {
        const pre = event.currentTarget;
        following.current = pre.scrollHeight - pre.scrollTop - pre.clientHeight <= AT_BOTTOM_PX;
      }}
    >
      {props.text}
    </pre>
  );
}
