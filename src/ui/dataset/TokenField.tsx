import { useState } from 'react';

/** sessionStorage key of the token, only when the user asks to remember it for the session. */
export const TOKEN_STORAGE_KEY = 'format-input.hf-token';

/** The token remembered for this session, if the user asked for it. */
export function readStoredToken(): string {
  try {
    return sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? '';
  } catch {
    return '';
  }
}

function storeToken(value: string, keep: boolean) {
  try {
    if (keep && value) sessionStorage.setItem(TOKEN_STORAGE_KEY, value);
    else sessionStorage.removeItem(TOKEN_STORAGE_KEY);
  } catch {
    // Storage refused (private mode): the token stays in memory only.
  }
}

/**
 * The access token: a password field kept in memory, remembered in sessionStorage only when the
 * box is ticked (never localStorage, never logged).
 */
export function TokenField({
  id,
  token,
  disabled,
  onChange,
}: {
  id: string;
  token: string;
  disabled: boolean;
  onChange: (token: string) => void;
}) {
  const [remember, setRemember] = useState(() => readStoredToken() !== '');
  return (
    <div className="dataset-token">
      <label htmlFor={id}>Hugging Face access token</label>
      <input
        id={id}
        type="password"
        autoComplete="off"
        spellCheck={false}
        value={token}
        onChange={(e) => {
          onChange(e.target.value);
          if (remember) storeToken(e.target.value, true);
        }}
        disabled={disabled}
      />
      <label className="dataset-remember">
        <input
          type="checkbox"
          checked={remember}
          onChange={(e) => {
            setRemember(e.target.checked);
            storeToken(token, e.target.checked);
          }}
        />
        Remember for this session
      </label>
    </div>
  );
}
