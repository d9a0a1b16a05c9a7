<?php

namespace Toolmark\Laravel\Testing;

use RuntimeException;
use Toolmark\Laravel\Agent\StreamingAgentModel;

/**
 * An AgentModel for an app's tests: answers each agent step with the next scripted reply and keeps
 * every request. Bind it with `$this->app->instance(AgentModel::class, $model)`. It streams: the
 * agent loop gets each reply's text in pieces, its `deltas` when the script gives them, else word by
 * word (each word with the white space after it), as a provider sends it.
 *
 *     $model = new ScriptedModel([ScriptedModel::pageCall('challenges.delete', ['id' => 3]), 'Confirm it in the page.']);
 *     $model = new ScriptedModel([ScriptedModel::streamed(['Your card ', '4242 42', '42 4242 4242', ' is set.'])]);
 */
final class ScriptedModel implements StreamingAgentModel
{
    /** @var list<array{system: string, messages: list<array<string, mixed>>, tools: list<array<string, mixed>>}> */
    public array $requests = [];

    /** @var list<array{text: string, tool_calls: list<array{id: string, name: string, input: array<string, mixed>}>, deltas?: list<string>}> */
    private array $replies;

    /** @param list<string|array{text?: string, tool_calls?: list<array{id: string, name: string, input: array<string, mixed>}>, deltas?: list<string>}> $replies a text reply, or text (or its deltas) and tool calls */
    public function __construct(array $replies)
    {
        $this->replies = array_map(function (string|array $r): array {
            if (is_string($r)) {
                return ['text' => $r, 'tool_calls' => []];
            }
            $reply = ['text' => isset($r['deltas']) ? implode('', $r['deltas']) : ($r['text'] ?? ''), 'tool_calls' => $r['tool_calls'] ?? []];
            if (isset($r['deltas'])) {
                $reply['deltas'] = array_values(array_map('strval', $r['deltas']));
            }

            return $reply;
        }, $replies);
    }

    /**
     * A reply whose text arrives in exactly these pieces (joined, its text), with these tool calls.
     *
     * @param list<string> $deltas
     * @param list<array{id: string, name: string, input: array<string, mixed>}> $toolCalls
     * @return array{text: string, tool_calls: list<array{id: string, name: string, input: array<string, mixed>}>, deltas: list<string>}
     */
    public static function streamed(array $deltas, array $toolCalls = []): array
    {
        return ['text' => implode('', $deltas), 'tool_calls' => $toolCalls, 'deltas' => array_values($deltas)];
    }

    /**
     * A reply that calls one page tool through `page_call`.
     *
     * @param array<string, mixed> $input
     * @return array{text: string, tool_calls: list<array{id: string, name: string, input: array<string, mixed>}>}
     */
    public static function pageCall(string $tool, array $input = [], string $id = 'call_1', string $text = ''): array
    {
        return ['text' => $text, 'tool_calls' => [['id' => $id, 'name' => 'page_call', 'input' => ['tool' => $tool, 'input' => $input]]]];
    }

    /** @throws RuntimeException when the script has no reply left (the loop asked the model once more than expected) */
    public function complete(string $system, array $messages, array $tools): array
    {
        return $this->stream($system, $messages, $tools, static function (string $text): void {});
    }

    /**
     * The next reply, its text handed to `$onText` in pieces first.
     *
     * @throws RuntimeException when the script has no reply left
     */
    public function stream(string $system, array $messages, array $tools, callable $onText): array
    {
        $this->requests[] = ['system' => $system, 'messages' => $messages, 'tools' => $tools];
        $reply = array_shift($this->replies);
        if ($reply === null) {
            throw new RuntimeException('ScriptedModel has no reply left for step '.count($this->requests));
        }
        foreach ($reply['deltas'] ?? (preg_split('/(?<=\s)(?=\S)/u', $reply['text']) ?: []) as $delta) {
            if ($delta !== '') {
                $onText($delta);
            }
        }
        unset($reply['deltas']);

        return $reply;
    }
}
