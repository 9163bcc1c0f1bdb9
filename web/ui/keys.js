// The API key dialog: once the server has API keys it answers 401 to a
// request without one; the dialog asks for a key, checks it with the
// server, and keeps it in this browser. "Forget API key" in the sidebar
// removes it.
import { api, apiKey, setKeyPrompt, describe } from './api.js';
import { t } from './i18n.js';

let dialog;
let form;
let input;
let errorEl;
let submitBtn;
let forgetBtn;

// initKeys wires the dialog and the Forget button, and makes the API ask
// for a key on a 401.
export function initKeys() {
  dialog = document.getElementById('key-dialog');
  form = dialog.querySelector('form');
  input = document.getElementById('key-input');
  errorEl = document.getElementById('key-error');
  submitBtn = dialog.querySelector('[data-role=ok]');
  forgetBtn = document.getElementById('forget-key');
  forgetBtn.hidden = !apiKey.get();
  forgetBtn.addEventListener('click', () => {
    apiKey.clear();
    // Start afresh: nothing read with the key stays on the page.
    location.assign('/');
  });
  setKeyPrompt(ask);
}

function showError(message) {
  errorEl.textContent = message;
  errorEl.hidden = !message;
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

// ask shows the dialog and resolves to true once a key the server accepts
// is stored, or false when the user closes it. message is the server's
// refusal, shown when a stored key was refused (revoked, say).
function ask(message, usedKey) {
  return new Promise((resolve) => {
    let checking = false;
    const done = (ok) => {
      form.removeEventListener('submit', onSubmit);
      dialog.removeEventListener('close', onClose);
      cancelBtn.removeEventListener('click', onCancel);
      if (dialog.open) dialog.close();
      resolve(ok);
    };
    const onSubmit = async (e) => {
      e.preventDefault();
      if (checking) return;
      const key = input.value.trim();
      if (!key) {
        showError(t('key.empty'));
        input.focus();
        return;
      }
      checking = true;
      submitBtn.disabled = true;
      submitBtn.textContent = t('key.checking');
      try {
        await api.raw('GET', '/info', undefined, { key });
      } catch (err) {
        showError(describe(err));
        input.focus();
        input.select();
        return;
      } finally {
        checking = false;
        submitBtn.disabled = false;
        submitBtn.textContent = t('key.submit');
      }
      apiKey.set(key);
      forgetBtn.hidden = false;
      input.value = '';
      done(true);
    };
    const onClose = () => done(false);
    const onCancel = () => done(false);
    const cancelBtn = dialog.querySelector('[data-role=cancel]');
    form.addEventListener('submit', onSubmit);
    dialog.addEventListener('close', onClose);
    cancelBtn.addEventListener('click', onCancel);
    input.value = '';
    showError(usedKey ? message : '');
    dialog.showModal();
    input.focus();
  });
}
