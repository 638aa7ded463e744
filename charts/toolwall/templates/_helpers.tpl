{{- define "toolwall.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "toolwall.labels" -}}
app.kubernetes.io/name: toolwall
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "toolwall.selector" -}}
app.kubernetes.io/name: toolwall
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "toolwall.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "toolwall.controller" -}}{{ include "toolwall.fullname" . }}-controller{{- end -}}
{{- define "toolwall.webhook" -}}{{ include "toolwall.fullname" . }}-webhook{{- end -}}
{{- define "toolwall.redis" -}}{{ include "toolwall.fullname" . }}-redis{{- end -}}

{{- define "toolwall.redisUrl" -}}
{{- if .Values.redis.url -}}
{{ .Values.redis.url }}
{{- else if .Values.redis.bundled.enabled -}}
redis://{{ include "toolwall.redis" . }}.{{ .Release.Namespace }}.svc:6379
{{- end -}}
{{- end -}}

{{- define "toolwall.controllerUrl" -}}
http://{{ include "toolwall.controller" . }}.{{ .Release.Namespace }}.svc:{{ .Values.controller.port }}
{{- end -}}

{{/* The restricted Pod Security Standard, for every Toolwall pod of the release. */}}
{{- define "toolwall.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
seccompProfile: {type: RuntimeDefault}
{{- end -}}

{{- define "toolwall.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities: {drop: [ALL]}
{{- end -}}

{{/* Spread replicas over nodes unless the user gave an affinity. */}}
{{- define "toolwall.affinity" -}}
{{- $component := index . 0 -}}
{{- $ctx := index . 1 -}}
{{- $values := index . 2 -}}
{{- if $values.affinity -}}
{{ toYaml $values.affinity }}
{{- else -}}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "toolwall.selector" $ctx | nindent 12 }}
            app.kubernetes.io/component: {{ $component }}
{{- end -}}
{{- end -}}
