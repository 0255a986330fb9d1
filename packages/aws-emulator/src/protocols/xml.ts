const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Escapes text content (the emulator writes no attribute values from input). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>]/g, (c) => ESCAPES[c]!);
}

/** `<name>content</name>`, with `content` escaped when it is text and taken as XML when it is `Xml`. */
export function element(name: string, content: string | number | boolean | Xml | readonly Xml[] | undefined): Xml {
  if (content === undefined) return xml('');
  let inner: string;
  if (content instanceof Xml) inner = content.text;
  else if (typeof content === 'object') inner = content.map((item) => item.text).join('');
  else inner = escapeXml(String(content));
  return xml(`<${name}>${inner}</${name}>`);
}

/** A fragment of XML that is already well formed. */
export class Xml {
  constructor(readonly text: string) {}
}

export function xml(text: string): Xml {
  return new Xml(text);
}

/** Several elements side by side. */
export function elements(...parts: readonly Xml[]): Xml {
  return xml(parts.map((part) => part.text).join(''));
}
