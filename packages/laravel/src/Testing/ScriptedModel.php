<?php

namespace Toolmark\Laravel\Testing;

use RuntimeException;
use Toolmark\Laravel\Agent\AgentModel;

/**
 * An AgentModel for an app's tests: answers each agent step with the next scripted reply and keeps
 * every request. Bind it with `$this->app->instance(AgentModel::class, $model)`.
 *
 *     $model = new ScriptedModel([ScriptedModel::pageCall('challenges.delete', ['id' => 3]), 'Confirm it in the page.']);
 */
final class ScriptedModel implements AgentModel
{
    /** @var list<array{system: string, messages: list<array<string, mixed>>, tools: list<array<string, mixed>>}> */
    public array $requests = [];

    /** @var list<array{text: string, tool_calls: list<array{id: string, name: string, input: array<string, mixed>}>}> */
    private array $replies;

    /** @param list<string|array{text?: string, tool_calls?: list<array{id: string, name: string, input: array<string, mixed>}>}> $replies a text reply, or text and tool calls */
    public function __construct(array $replies)
    {
        $this->replies = array_map(fn (string|array $r): array => is_string($r)
            ? ['text' => $r, 'tool_calls' => []]
            : ['text' => $r['text'] ?? '', 'tool_calls' => $r['tool_calls'] ?? []], $replies);
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
        $this->requests[] = ['system' => $system, 'messages' => $messages, 'tools' => $tools];
        $reply = array_shift($this->replies);
        if ($reply === null) {
            throw new RuntimeException('ScriptedModel has no reply left for step '.count($this->requests));
        }

        return $reply;
    }
}
