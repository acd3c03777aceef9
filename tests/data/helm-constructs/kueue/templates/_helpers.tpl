{{- define "kueue.issuerRef" -}}
kind: Issuer
name: {{ .Release.Name }}-selfsigned
{{- end -}}
