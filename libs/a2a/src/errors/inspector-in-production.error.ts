/** Option `inspector` was given while `NODE_ENV` is `production`, without `allowInProduction`: the app does not start. */
export class InspectorInProductionError extends Error {
  override readonly name = 'InspectorInProductionError';
}
