"use client";
import { useCallback, useRef, useState, type RefObject } from "react";

/**
 * A reducer whose latest state is also readable at once through a ref: event handlers and socket
 * callbacks decide on the state as it is after the last dispatch, not as of the last render (a re-read
 * must not overwrite a keystroke typed since).
 */
export function useSyncedReducer<S, A>(reduce: (state: S, action: A) => S, initial: S): [S, (action: A) => void, RefObject<S>] {
  const [state, setState] = useState(initial);
  const latest = useRef(state);
  const dispatch = useCallback(
    (action: A) => {
      latest.current = reduce(latest.current, action);
      setState(latest.current);
    },
    [reduce],
  );
  return [state, dispatch, latest];
}
