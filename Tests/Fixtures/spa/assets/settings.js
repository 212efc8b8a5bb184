// A lazily loaded chunk: renders the settings the API returned.
export function render(settings) {
  return `Hello ${settings.user}, theme ${settings.theme} (deploy {{DEPLOY}})`;
}
