// @ts-check
// Press behaviours of show-control remotes, as props for buttons:
// - go: fires when the finger lifts over the button (a slip off cancels), as a click does;
// - down: fires the moment the finger lands (stop, panic), no waiting for the lift;
// - hold: press on touch-down, release on lift (Gate-mode Clips).
// Keyboard users get the same: Enter/Space click a go or down button, and hold a hold one.

import { VELOCITY } from "./action_rules.js";

/**
 * An event of the button its props are on (`currentTarget`: the button, while it is handled).
 * @template {Event} E
 * @typedef {E & {currentTarget: HTMLElement}} On
 */
/**
 * What a press fires with: a velocity of `VELOCITY`'s range, or undefined without pressure.
 * @typedef {number | undefined} Velocity
 */

/** @type {WeakMap<EventTarget, number>} */
const pressures = new WeakMap();

/**
 * A velocity of the API's range (`VELOCITY`, served from protocol/action_rules.ts) from touch
 * pressure, never silent (at least one above the least), or undefined where the device has none.
 * @param {number | undefined} pressure
 * @returns {Velocity}
 */
function velocityOf(pressure) {
  // Without pressure hardware, browsers report 0.5 while pressed (and 0 for a mouse hover).
  if (pressure === undefined || pressure === 0 || pressure === 0.5) return undefined;
  const scaled = Math.round(pressure * VELOCITY.max);
  return Math.max(VELOCITY.min + 1, Math.min(VELOCITY.max, scaled));
}

/** @param {On<PointerEvent>} event */
function track(event) {
  if (event.pointerType === "mouse") return;
  const seen = pressures.get(event.currentTarget) ?? 0;
  pressures.set(event.currentTarget, Math.max(seen, event.pressure));
}

/**
 * Props of a button that fires on lift (the "go" of a show remote): `fire(velocity)`.
 * @param {(velocity: Velocity) => unknown} fire
 */
export function goProps(fire) {
  return {
    /** @param {On<PointerEvent>} event */
    onPointerDown: (event) => {
      pressures.delete(event.currentTarget);
      track(event);
    },
    onPointerMove: track,
    /** @param {On<MouseEvent>} event */
    onClick: (event) => {
      const velocity = velocityOf(pressures.get(event.currentTarget));
      pressures.delete(event.currentTarget);
      fire(velocity);
    },
  };
}

/**
 * Props of a button that fires on touch-down (stop, panic): `fire()`.
 * @param {() => unknown} fire
 */
export function downProps(fire) {
  return {
    /** @param {PointerEvent} event */
    onPointerDown: (event) => {
      if (event.button !== 0) return;
      event.preventDefault();
      fire();
    },
    // A click with no pointer behind it (detail 0) is the keyboard's.
    /** @param {MouseEvent} event */
    onClick: (event) => {
      if (event.detail === 0) fire();
    },
  };
}

/** @type {WeakSet<EventTarget>} */
const held = new WeakSet();

/**
 * Props of a button held down: `press(velocity)` on touch-down, `release()` on lift. What is
 * held is kept on the element, so a re-render while held (the press's own update) loses nothing.
 * @param {(velocity: Velocity) => unknown} press
 * @param {() => unknown} release
 */
export function holdProps(press, release) {
  /**
   * @param {HTMLElement} element
   * @param {Velocity} velocity
   */
  const down = (element, velocity) => {
    if (held.has(element)) return;
    held.add(element);
    press(velocity);
  };
  /** @param {On<Event>} event */
  const up = (event) => {
    if (!held.delete(event.currentTarget)) return;
    release();
  };
  return {
    /** @param {On<PointerEvent>} event */
    onPointerDown: (event) => {
      if (event.button !== 0) return;
      event.preventDefault();
      event.currentTarget.setPointerCapture?.(event.pointerId);
      down(
        event.currentTarget,
        event.pointerType === "mouse" ? undefined : velocityOf(event.pressure),
      );
    },
    onPointerUp: up,
    onPointerCancel: up,
    onLostPointerCapture: up,
    /** @param {Event} event */
    onContextMenu: (event) => event.preventDefault(),
    /** @param {On<KeyboardEvent>} event */
    onKeyDown: (event) => {
      if ((event.key === " " || event.key === "Enter") && !event.repeat) {
        event.preventDefault();
        down(event.currentTarget, undefined);
      }
    },
    /** @param {On<KeyboardEvent>} event */
    onKeyUp: (event) => {
      if (event.key === " " || event.key === "Enter") up(event);
    },
    onBlur: up,
  };
}
