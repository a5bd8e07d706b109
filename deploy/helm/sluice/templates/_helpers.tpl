{{/* Names and labels shared by every object of the chart. */}}

{{- define "sluice.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* <release>-sluice, or the release name alone when it already says sluice. */}}
{{- define "sluice.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "sluice.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "sluice.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* What the Services select: every member of this release. */}}
{{- define "sluice.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sluice.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "sluice.secretName" -}}
{{- default (printf "%s-secrets" (include "sluice.fullname" .)) .Values.secrets.name }}
{{- end }}

{{- define "sluice.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
The sluice YAML: .Values.config with metrics.listen set to every interface of the pod on
.Values.port, so that the probes, the Services and the listener cannot disagree. A config
that sets metrics.listen itself is refused rather than silently overridden.
*/}}
{{- define "sluice.config" -}}
{{- $config := deepCopy .Values.config }}
{{- $metrics := get $config "metrics" | default dict }}
{{- if or (hasKey $config "metrics.listen") (hasKey $metrics "listen") }}
{{- fail "config.metrics.listen is set by the chart (0.0.0.0:<port>): set .Values.port instead" }}
{{- end }}
{{- $_ := set $metrics "listen" (printf "0.0.0.0:%d" (int .Values.port)) }}
{{- $_ := set $config "metrics" $metrics }}
{{- toYaml $config }}
{{- end }}
