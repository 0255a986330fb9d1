import { parser } from '@prometheus-io/lezer-promql';

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

/** One `metric{label="value", ...}` of an expression: the metric's name and its equality matchers. */
export interface Selector {
  metric: string;
  labels: Record<string, string>;
}

// Grafana replaces its interval variables before the query reaches Prometheus; any duration parses the same.
const GRAFANA_INTERVALS = /\$(__rate_interval|__interval|__range)\b/g;

const children = (node: SyntaxNode, name: string): SyntaxNode[] => {
  const found: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) if (child.name === name) found.push(child);
  return found;
};

/**
 * The vector selectors of a PromQL expression, parsed with Prometheus's own grammar (the one its UI
 * uses). A syntax error throws, with the expression and where it is, so a broken query fails the test.
 */
export function selectors(expression: string): Selector[] {
  const text = expression.replace(GRAFANA_INTERVALS, '5m');
  const found: Selector[] = [];
  parser.parse(text).iterate({
    enter: (ref) => {
      if (ref.type.isError)
        throw new Error(`PromQL syntax error at ${ref.from} ("${text.slice(ref.from, ref.from + 20)}...") in: ${text}`);
      if (ref.name !== 'VectorSelector') return;
      const [name] = children(ref.node, 'Identifier');
      const labels: Record<string, string> = {};
      for (const matchers of children(ref.node, 'LabelMatchers'))
        for (const matcher of children(matchers, 'UnquotedLabelMatcher')) {
          const [label] = children(matcher, 'LabelName');
          const [op] = children(matcher, 'MatchOp');
          const [value] = children(matcher, 'StringLiteral');
          if (label && value && op && text.slice(op.from, op.to) === '=')
            labels[text.slice(label.from, label.to)] = JSON.parse(text.slice(value.from, value.to)) as string;
        }
      if (name) found.push({ metric: text.slice(name.from, name.to), labels });
    },
  });
  return found;
}
