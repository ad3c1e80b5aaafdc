import { isJsonMediaType } from './json-media-type.js';

describe('isJsonMediaType', () => {
  it.each([
    'application/json',
    'application/a2a+json',
    'application/json; charset=utf-8',
    'Application/JSON;Charset=UTF-8',
    ' application/a2a+json ; charset=utf-8',
    'APPLICATION/A2A+JSON',
  ])('takes %s', (type) => expect(isJsonMediaType(type)).toBe(true));

  // What a browser sends cross-site without a preflight, and near misses of the JSON types.
  it.each([
    undefined,
    '',
    'text/plain',
    'text/plain;charset=UTF-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json-seq',
    'application/jsonx',
    'application/problem+json',
    'text/json',
    'json',
    'application/json, text/plain',
  ])('refuses %s', (type) => expect(isJsonMediaType(type)).toBe(false));
});
