{{/* The release's name, with the chart's unless it already holds it: "keymaster" for a release named keymaster. */}}
{{- define "keymaster.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 48 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 48 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels that select the controller's pods: never change them (a Deployment's selector is immutable). */}}
{{- define "keymaster.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: controller
{{- end -}}

{{- define "keymaster.labels" -}}
{{ include "keymaster.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "keymaster.serviceAccountName" -}}
{{- default (include "keymaster.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* repository:tag, or repository@digest when a digest is given (it names the content; a tag can move). */}}
{{- define "keymaster.image" -}}
{{- with .Values.image -}}
{{- if .digest -}}
{{- printf "%s@%s" .repository .digest -}}
{{- else -}}
{{- printf "%s:%s" .repository (default $.Chart.AppVersion .tag) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* --feature-gates=A=true,B=false, gates in name order; nothing when there are none. */}}
{{- define "keymaster.featureGates" -}}
{{- $gates := list -}}
{{- range $gate, $on := .Values.featureGates -}}
{{- $gates = append $gates (printf "%s=%t" $gate $on) -}}
{{- end -}}
{{- if $gates -}}
--feature-gates={{ join "," $gates }}
{{- end -}}
{{- end -}}

{{/* Fails the render for values that cannot work, naming the value and the fix. */}}
{{- define "keymaster.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) (eq (int .Values.shards) 0) -}}
{{- fail (printf "replicaCount is %d with leaderElection.enabled false: every replica would reconcile and write. Set leaderElection.enabled true, shards above 0, or replicaCount 1." (int .Values.replicaCount)) -}}
{{- end -}}
{{- end -}}

{{/* The AWSCluster rules: watched, finalizer added and removed (merge patch), status written (PUT). */}}
{{- define "keymaster.awsClusterRules" -}}
- apiGroups: [infrastructure.keymaster.dev]
  resources: [awsclusters]
  verbs: [list, watch, patch]
- apiGroups: [infrastructure.keymaster.dev]
  resources: [awsclusters/status]
  verbs: [update]
- apiGroups: [infrastructure.keymaster.dev]
  resources: [awsclusterledgers]
  verbs: [list, watch, create, update]
{{- end -}}

{{/* The webhook Service's name, and where clientConfig points. */}}
{{- define "keymaster.webhookService" -}}
{{ include "keymaster.fullname" . }}-webhook
{{- end -}}

{{- define "keymaster.webhookClientConfig" -}}
service:
  name: {{ include "keymaster.webhookService" .root }}
  namespace: {{ .root.Release.Namespace }}
  path: {{ .path }}
{{- end -}}

{{/* A list of strings as CEL list items: 'a', 'b'. */}}
{{- define "keymaster.quotedList" -}}
{{- range $index, $item := . }}{{ if $index }}, {{ end }}'{{ $item }}'{{ end -}}
{{- end -}}
