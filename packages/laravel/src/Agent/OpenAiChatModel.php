<?php

namespace Toolmark\Laravel\Agent;

use RuntimeException;
use Toolmark\Laravel\Llm;

/**
 * AgentModel on any OpenAI-compatible Chat Completions endpoint (`toolmark.llm.base_url`, then
 * `/chat/completions`), streaming. Content deltas are joined; tool calls are assembled per index
 * from their argument fragments. A failed request or a non-2xx answer throws RuntimeException.
 */
final class OpenAiChatModel implements AgentModel
{
    /** The endpoint (`…/v1`), the API key (sent as a Bearer token), the model name and the timeout in seconds. */
    public function __construct(
        private readonly string $baseUrl,
        private readonly string $apiKey,
        private readonly string $model,
        private readonly int $timeout = 60,
    ) {}

    /** One streamed Chat Completions request; see AgentModel::complete(). */
    public function complete(string $system, array $messages, array $tools): array
    {
        $body = ['model' => $this->model, 'stream' => true, 'messages' => $this->messages($system, $messages)];
        if ($tools !== []) {
            $body['tools'] = array_map(fn (array $t): array => ['type' => 'function', 'function' => [
                'name' => $t['name'], 'description' => $t['description'], 'parameters' => $t['input_schema'],
            ]], $tools);
        }
        $context = stream_context_create(['http' => [
            'method' => 'POST',
            // HTTP/1.1 so the wrapper decodes chunked streams; one request per connection.
            'protocol_version' => 1.1,
            'header' => "Content-Type: application/json\r\nAccept: text/event-stream\r\nConnection: close\r\nAuthorization: Bearer {$this->apiKey}\r\n",
            'content' => Llm::json($body),
            'timeout' => $this->timeout,
            'ignore_errors' => true,
        ]]);
        $stream = @fopen(rtrim($this->baseUrl, '/').'/chat/completions', 'r', false, $context);
        if ($stream === false) {
            throw new RuntimeException('model request failed');
        }
        $status = (string) (stream_get_meta_data($stream)['wrapper_data'][0] ?? '');
        if (preg_match('#^HTTP/\S+ (\d{3})#', $status, $m) === 1 && ((int) $m[1] < 200 || (int) $m[1] > 299)) {
            fclose($stream);
            throw new RuntimeException("model request failed: HTTP {$m[1]}");
        }
        $text = '';
        $calls = [];
        try {
            while (($line = fgets($stream)) !== false) {
                $line = trim($line);
                if (! str_starts_with($line, 'data:')) {
                    continue;
                }
                $data = trim(substr($line, 5));
                if ($data === '[DONE]') {
                    break;
                }
                $delta = json_decode($data, true)['choices'][0]['delta'] ?? [];
                $text .= (string) ($delta['content'] ?? '');
                foreach ($delta['tool_calls'] ?? [] as $part) {
                    $i = (int) ($part['index'] ?? 0);
                    $calls[$i]['id'] = $part['id'] ?? ($calls[$i]['id'] ?? '');
                    $calls[$i]['name'] = $part['function']['name'] ?? ($calls[$i]['name'] ?? '');
                    $calls[$i]['arguments'] = ($calls[$i]['arguments'] ?? '').($part['function']['arguments'] ?? '');
                }
            }
        } finally {
            fclose($stream);
        }
        ksort($calls);

        return ['text' => $text, 'tool_calls' => array_values(array_map(fn (array $c): array => [
            'id' => $c['id'],
            'name' => $c['name'],
            'input' => is_array($input = json_decode($c['arguments'] ?: '{}', true)) ? $input : [],
        ], $calls))];
    }

    /** The provider-neutral history as Chat Completions messages (system first). */
    private function messages(string $system, array $history): array
    {
        $out = [['role' => 'system', 'content' => $system]];
        foreach ($history as $m) {
            $out[] = match ($m['role']) {
                'user' => ['role' => 'user', 'content' => $m['text']],
                'tool' => ['role' => 'tool', 'tool_call_id' => $m['toolCallId'], 'content' => $m['content']],
                default => array_filter([
                    'role' => 'assistant',
                    'content' => $m['text'] === '' ? null : $m['text'],
                    'tool_calls' => array_map(fn (array $c): array => [
                        'id' => $c['id'], 'type' => 'function',
                        'function' => ['name' => $c['name'], 'arguments' => Llm::json((object) ($c['input'] ?? []))],
                    ], $m['toolCalls'] ?? []) ?: null,
                ], fn ($v) => $v !== null) + ['content' => null],
            };
        }

        return $out;
    }
}
