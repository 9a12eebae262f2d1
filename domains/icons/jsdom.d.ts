// The one part of jsdom the SVG sanitiser uses. jsdom's own type package pulls the DOM library into every file's
// globals (fetch, console ...), which the server code must not see; svg.ts describes the DOM it touches instead.
declare module 'jsdom' {
  export class JSDOM {
    constructor(html?: string);
    readonly window: unknown;
  }
}
