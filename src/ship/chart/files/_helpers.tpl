{{/*
Helpers of the CHARTNAME chart, written by `operator-rs generate chart`: regenerating the chart
overwrites edits here.
*/}}

{{/* The chart's name, the app.kubernetes.io/name of every object. */}}
{{- define "CHARTNAME.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of the release's namespaced objects: the release name, with the chart's name
unless the release name holds it already; at most 63 characters, a DNS label.
*/}}
{{- define "CHARTNAME.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/*
The name of the release's cluster-scoped objects (ClusterRoles, their bindings, webhook
configurations): the namespace and the full name, so that releases of the same name in two
namespaces never share one.
*/}}
{{- define "CHARTNAME.clusterScopedName" -}}
{{- printf "%s-%s" .Release.Namespace (include "CHARTNAME.fullname" .) }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "CHARTNAME.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "CHARTNAME.selectorLabels" . }}
{{- with .Chart.AppVersion }}
app.kubernetes.io/version: {{ . | trunc 63 | trimSuffix "-" | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the release's pods: the chart and the release. */}}
{{- define "CHARTNAME.selectorLabels" -}}
app.kubernetes.io/name: {{ include "CHARTNAME.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* "true" when the operator watches every namespace (watchNamespace: ""). */}}
{{- define "CHARTNAME.watchesAllNamespaces" -}}
{{- if and (kindIs "string" .Values.watchNamespace) (eq .Values.watchNamespace "") }}true{{ end }}
{{- end }}

{{/*
The namespaces the namespaced rules are granted in, separated by spaces: the release's, and
the watched one when it is another.
*/}}
{{- define "CHARTNAME.rbacNamespaces" -}}
{{- $watched := .Values.watchNamespace | default .Release.Namespace }}
{{- list .Release.Namespace $watched | uniq | join " " }}
{{- end }}
