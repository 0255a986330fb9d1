import { ApiError, qualifiedResource } from '../../api/status.js';
import type { RbacAuthorizer } from '../../auth/rbac.js';
import {
  validatingAdmissionPolicies,
  validatingAdmissionPolicyBindings,
} from '../../resources/builtins/admission-policies.js';
import type { Store } from '../../storage/store.js';
import { arrayAt, isObject, objectAt, text, type JsonObject } from '../../util/json.js';
import { namespaceSelected, objectSelected, ruleMatches } from '../match.js';
import type { AdmissionAttributes } from '../request.js';
import { inputsOf } from './activation.js';
import { compilePolicy, type CompiledPolicy } from './compile.js';
import { evaluatePolicy, type Inputs, type Refusal } from './evaluate.js';

/** A refusal with the policy (and binding) it came from, as the dispatcher collects them. */
interface Denial extends Refusal {
  policy: string;
  binding?: string;
}

const nameOf = (object: JsonObject): string => text(objectAt(object, 'metadata')?.name);
const ordered = (objects: Iterable<[string, JsonObject]>): JsonObject[] =>
  [...objects].map(([, object]) => object).sort((a, b) => nameOf(a).localeCompare(nameOf(b)));

/** NamedRuleWithOperations: a rule, and the names it is limited to. */
function namedRuleMatches(rule: JsonObject, attributes: AdmissionAttributes, equivalent: boolean): boolean {
  const names = (arrayAt(rule, 'resourceNames') ?? []).map(text);
  return ruleMatches(rule, attributes, equivalent) && (names.length === 0 || names.includes(attributes.name));
}

/**
 * matching.Matches: the selectors, then the excluded rules, then the rules (none: everything, as a
 * binding's matchResources may say).
 */
function resourcesMatch(match: JsonObject, attributes: AdmissionAttributes, store: Store): boolean {
  const equivalent = match.matchPolicy !== 'Exact';
  const rules = (key: string): JsonObject[] => (arrayAt(match, key) ?? []).filter(isObject);
  if (!namespaceSelected(match.namespaceSelector, attributes, store)) return false;
  if (!objectSelected(match.objectSelector, attributes)) return false;
  if (rules('excludeResourceRules').some((rule) => namedRuleMatches(rule, attributes, equivalent))) return false;
  const resourceRules = rules('resourceRules');
  return resourceRules.length === 0 || resourceRules.some((rule) => namedRuleMatches(rule, attributes, equivalent));
}

/** `Unknown` when nothing names the object, as admission.NewForbidden says. */
function objectName(attributes: AdmissionAttributes): string {
  if (attributes.name) return attributes.name;
  if (!attributes.object) return 'Unknown';
  const metadata = objectAt(attributes.object, 'metadata');
  return text(metadata?.name) || text(metadata?.generateName) || 'Unknown';
}

const CODES: Record<string, number> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 };

/** The first denial as kube-apiserver answers it: admission.NewForbidden with the validation's reason and code. */
function refusal(attributes: AdmissionAttributes, denial: Denial, warnings: string[]): ApiError {
  const by = `ValidatingAdmissionPolicy '${denial.policy}'${denial.binding === undefined ? '' : ` with binding '${denial.binding}'`}`;
  const message = `${by} denied request: ${denial.message}`;
  const reason = denial.reason || 'Invalid';
  const { resource } = attributes;
  const name = objectName(attributes);
  return new ApiError(
    CODES[reason] ?? 422,
    reason,
    `${qualifiedResource(resource)} ${JSON.stringify(name)} is forbidden: ${message}`,
    { name, group: resource.group || undefined, kind: resource.plural, causes: [{ message }] },
    warnings,
  );
}

/**
 * kube-apiserver's ValidatingAdmissionPolicy plugin: each binding (by name) of each policy (by
 * name) that matches the request runs the policy's validations; Deny refuses with the first
 * failure, Warn adds a `Warning` header, Audit is noted nowhere (the emulator keeps no audit log).
 * Policies with `paramKind` are not evaluated: they refuse as a configuration error (their
 * failurePolicy decides).
 */
export class PolicyAdmission {
  private readonly compiled = new Map<string, { version: string; policy: CompiledPolicy }>();

  constructor(
    private readonly store: Store,
    /** RBAC, which the `authorizer` of expressions asks (without it everything is allowed). */
    private readonly rbac: RbacAuthorizer | undefined,
  ) {}

  /** Whether any binding is stored (else no policy can apply). */
  get active(): boolean {
    return this.store.count(validatingAdmissionPolicyBindings.storageKey) > 0;
  }

  private compile(policy: JsonObject): CompiledPolicy {
    const metadata = objectAt(policy, 'metadata') ?? {};
    const [uid, version] = [text(metadata.uid), text(metadata.resourceVersion)];
    const cached = this.compiled.get(uid);
    if (cached?.version === version) return cached.policy;
    const compiled = compilePolicy(objectAt(policy, 'spec') ?? {});
    this.compiled.set(uid, { version, policy: compiled });
    return compiled;
  }

  /** The denials of every matching binding, in order; Warn bindings' failures become warnings. */
  private denials(attributes: AdmissionAttributes, warnings: string[]): Denial[] {
    const policies = new Map(
      ordered(this.store.list(validatingAdmissionPolicies.storageKey)).map((p) => [nameOf(p), p]),
    );
    const bindings = ordered(this.store.list(validatingAdmissionPolicyBindings.storageKey));
    const denials: Denial[] = [];
    let inputs: Inputs | undefined;
    for (const [name, policy] of policies) {
      const bound = bindings.filter((binding) => objectAt(binding, 'spec')?.policyName === name);
      const spec = objectAt(policy, 'spec') ?? {};
      if (bound.length === 0 || !resourcesMatch(objectAt(spec, 'matchConstraints') ?? {}, attributes, this.store)) {
        continue;
      }
      const failurePolicy = text(spec.failurePolicy);
      if (objectAt(spec, 'paramKind')) {
        if (failurePolicy !== 'Ignore') {
          denials.push({
            policy: name,
            message:
              'failed to configure policy: paramKind is not supported by the kube-emulator (docs/emulators/kube-emulator.md)',
            reason: '',
          });
        }
        continue;
      }
      for (const binding of bound) {
        const bindingSpec = objectAt(binding, 'spec') ?? {};
        const match = objectAt(bindingSpec, 'matchResources');
        if (match && !resourcesMatch(match, attributes, this.store)) continue;
        inputs ??= inputsOf(attributes, this.store, this.rbac);
        const actions = (arrayAt(bindingSpec, 'validationActions') ?? []).map(text);
        for (const failure of evaluatePolicy(this.compile(policy), inputs, failurePolicy)) {
          if (actions.includes('Deny')) denials.push({ ...failure, policy: name, binding: nameOf(binding) });
          if (actions.includes('Warn')) {
            warnings.push(
              `Validation failed for ValidatingAdmissionPolicy '${name}' with binding '${nameOf(binding)}': ${failure.message}`,
            );
          }
        }
      }
    }
    return denials;
  }

  /** The refusal of a request, if a policy denies it (its Warn failures are added to `warnings` either way). */
  refusal(attributes: AdmissionAttributes, warnings: string[]): ApiError | undefined {
    if (!this.active) return undefined;
    const [first] = this.denials(attributes, warnings);
    return first && refusal(attributes, first, warnings);
  }

  /** Admission of a request: throws the refusal. */
  validate(attributes: AdmissionAttributes, warnings: string[]): void {
    const refused = this.refusal(attributes, warnings);
    if (refused) throw refused;
  }
}
