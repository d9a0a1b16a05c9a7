<?php

namespace Toolmark\Laravel\Tests\Unit;

use PHPUnit\Framework\TestCase;
use RuntimeException;
use Toolmark\Laravel\Testing\ScriptedModel;

final class ScriptedModelTest extends TestCase
{
    public function test_replies_in_order_keeps_the_requests_and_refuses_an_unexpected_step(): void
    {
        $model = new ScriptedModel([ScriptedModel::pageCall('a.b', ['x' => 1], 'c9', 'On it.'), 'Done.']);
        $this->assertSame(
            ['text' => 'On it.', 'tool_calls' => [['id' => 'c9', 'name' => 'page_call', 'input' => ['tool' => 'a.b', 'input' => ['x' => 1]]]]],
            $model->complete('sys', [['role' => 'user', 'text' => 'hi']], []),
        );
        $this->assertSame(['text' => 'Done.', 'tool_calls' => []], $model->complete('sys2', [], []));
        $this->assertSame(['sys', 'sys2'], array_column($model->requests, 'system'));
        $this->expectExceptionObject(new RuntimeException('ScriptedModel has no reply left for step 3'));
        $model->complete('sys3', [], []);
    }

    public function test_it_streams_each_reply_word_by_word_or_in_the_scripted_pieces(): void
    {
        $model = new ScriptedModel(['Two words.  Three', ScriptedModel::streamed(['4242 42', '42'], [['id' => 'c', 'name' => 'page_call', 'input' => []]])]);
        $pieces = [];
        $reply = $model->stream('sys', [], [], function (string $d) use (&$pieces): void {
            $pieces[] = $d;
        });
        $this->assertSame(['Two ', 'words.  ', 'Three'], $pieces);
        $this->assertSame(['text' => 'Two words.  Three', 'tool_calls' => []], $reply);
        $pieces = [];
        $reply = $model->stream('sys', [], [], function (string $d) use (&$pieces): void {
            $pieces[] = $d;
        });
        $this->assertSame(['4242 42', '42'], $pieces);
        $this->assertSame(['text' => '4242 4242', 'tool_calls' => [['id' => 'c', 'name' => 'page_call', 'input' => []]]], $reply);
    }
}
