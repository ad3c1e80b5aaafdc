// The inspector's sign-in: keeps the credential for one of the card's header schemes in a cookie of the page's path,
// which the page's files accept (the browser sends no header of the page's choosing when it loads them).

const COOKIE = 'a2a-inspector-credential';
const form = document.getElementById('login-form');
const select = document.getElementById('login-scheme');
const error = document.getElementById('login-error');

/** The schemes a credential can be typed for: an API key in a header, or an Authorization header. */
function headerSchemes(card) {
  return Object.entries(card.securitySchemes ?? {}).flatMap(([name, scheme]) => {
    const apiKey = scheme.apiKeySecurityScheme;
    if (apiKey?.location === 'header') return [{ name, header: apiKey.name, prefix: '' }];
    const http = scheme.httpAuthSecurityScheme;
    if (http) return [{ name, header: 'Authorization', prefix: `${http.scheme} ` }];
    if (scheme.oauth2SecurityScheme || scheme.openIdConnectSecurityScheme)
      return [{ name, header: 'Authorization', prefix: 'Bearer ' }];
    return [];
  });
}

const card = await fetch('/.well-known/agent-card.json').then((response) => response.json());
const schemes = headerSchemes(card);
for (const [index, scheme] of schemes.entries()) {
  const option = document.createElement('option');
  option.value = String(index);
  option.textContent = `${scheme.name} (${scheme.header})`;
  select.append(option);
}
if (schemes.length === 0) error.textContent = 'None of the card’s security schemes takes a credential typed here.';

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const scheme = schemes[Number(select.value)];
  const credential = document.getElementById('login-credential').value;
  if (!scheme || !credential) return;
  const value = encodeURIComponent(JSON.stringify({ header: scheme.header, value: `${scheme.prefix}${credential}` }));
  const path = new URL(document.baseURI).pathname.replace(/\/$/, '');
  document.cookie = `${COOKIE}=${value}; path=${path}; SameSite=Strict`;
  location.reload();
});
